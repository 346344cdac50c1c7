/**
 * The page's fork tree (plain ES2020, run after the main script in its element): the session it was forked from,
 * and each child session with its mode, description and cache use, children under their parent. Text goes in
 * as text nodes only.
 */
export const TREE_SCRIPT = String.raw`;
(function () {
  'use strict'
  var tree = JSON.parse(document.getElementById('dsh-view-data').textContent).tree
  var box = document.getElementById('tree')
  if (!tree || (!tree.parent && !tree.children.length)) return
  function el(tag, className, text) {
    var node = document.createElement(tag)
    if (className) node.className = className
    if (text !== undefined && text !== null) node.textContent = String(text)
    return node
  }
  if (tree.parent) {
    var up = el('div', 'tree-parent', 'Forked from ' + tree.parent.id + ' (' + tree.parent.mode + ': ' + tree.parent.description + ')')
    up.dataset.parent = tree.parent.id
    box.appendChild(up)
  }
  function list(children) {
    var ul = el('ul', 'tree-children')
    children.forEach(function (child) {
      var li = el('li', 'tree-child')
      li.dataset.child = child.id
      li.appendChild(el('span', 'tree-id', child.id))
      li.appendChild(el('span', 'tree-mode', child.mode))
      li.appendChild(el('span', 'tree-description', child.description))
      var use = child.missing !== null ? 'not readable: ' + child.missing
        : child.requests + ' request' + (child.requests === 1 ? '' : 's') + ', '
          + (child.cachedShare === null ? 'no usage reported' : (child.cachedShare * 100).toFixed(1) + '% cached'
          + ' (' + child.cacheRead.toLocaleString('en-US') + ' of ' + child.input.toLocaleString('en-US') + ' prompt tokens)')
      var figure = el('span', 'tree-use', use)
      figure.dataset.cachedShare = child.cachedShare === null ? '' : String(child.cachedShare)
      li.appendChild(figure)
      if (child.children.length) li.appendChild(list(child.children))
      ul.appendChild(li)
    })
    return ul
  }
  if (tree.children.length) {
    box.appendChild(el('div', 'note', 'Child sessions (forks and side questions), each with its own cache use:'))
    box.appendChild(list(tree.children))
  }
})()
`
