import { DETAIL_SCRIPT } from './detail-script.ts'

/**
 * The page's script, plain ES2020 run by the browser. It reads the inert JSON data and builds every node
 * with `textContent`, so session text is never parsed as markup. The timeline is virtualized: only the
 * rows in view (and a margin) exist in the document, whatever the session's length.
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict'
  var data = JSON.parse(document.getElementById('dsh-view-data').textContent)
  var F = {}
  data.rowFields.forEach(function (name, index) { F[name] = index })
  var ROW = 26
  var REASONS = [null, 'initial', 'resume', 'change', 'model']
  var rows = data.rows

  function el(tag, className, text) {
    var node = document.createElement(tag)
    if (className) node.className = className
    if (text !== undefined && text !== null) node.textContent = String(text)
    return node
  }
  function num(value) { return value.toLocaleString('en-US') }
  function pct(value) { return value === null ? 'n/a' : (value * 100).toFixed(1) + '%' }
  function clock(ms) {
    if (ms < 0) return '—'
    var d = new Date(ms)
    return d.toISOString().slice(11, 23)
  }
  function duration(ms) {
    if (ms < 0) return ''
    if (ms < 1000) return '+' + ms + ' ms'
    if (ms < 60000) return '+' + (ms / 1000).toFixed(1) + ' s'
    if (ms < 3600000) return '+' + (ms / 60000).toFixed(1) + ' min'
    return '+' + (ms / 3600000).toFixed(1) + ' h'
  }
  function figure(key, value, label) {
    var box = el('div', 'figure')
    box.dataset.figure = key
    box.appendChild(el('span', 'value', value))
    box.appendChild(el('span', 'label', label))
    return box
  }

  // ---- summary
  var s = data.summary
  document.getElementById('source').textContent = data.source
  var figures = document.getElementById('figures')
  figures.appendChild(figure('models', s.models.join(', ') || '—', s.models.length === 1 ? 'model' : 'models'))
  figures.appendChild(figure('requests', num(s.requests), 'requests in ' + num(s.turns) + ' turns'))
  figures.appendChild(figure('cached-share', pct(s.cachedShare), s.emulatedUsage ? 'cached (emulated by the offline model, not a provider\'s figures; ' + num(s.withUsage) + ' with usage)' : 'cached (provider-reported, ' + num(s.withUsage) + ' with usage)'))
  figures.appendChild(figure('input-tokens', num(s.tokens.input), 'prompt tokens'))
  figures.appendChild(figure('uncached-tokens', num(s.uncached.total), 'billed without cache'))
  function usd(value) { return '$' + value.toFixed(value < 10 ? 4 : 2) }
  if (s.money) {
    figures.appendChild(figure('cost', usd(s.money.billed), 'billed' + (s.money.emulated ? ' (emulated)' : '') + ', against ' + usd(s.money.noCache) + ' with no cache (saved ' + usd(s.money.noCache - s.money.billed) + '); ' + usd(s.money.breakCost) + ' lost to breaks'))
  }
  figures.appendChild(figure('header-changes', num(s.headerChanges), 'header changes'))
  figures.appendChild(figure('tools-added', num(s.toolsAdded), 'tools added'))
  figures.appendChild(figure('tools-removed', num(s.toolsRemoved), 'tools removed'))
  figures.appendChild(figure('compactions', num(s.compactions), 'compactions'))
  figures.appendChild(figure('failed-turns', num(s.failedTurns), 'failed turns'))
  figures.appendChild(figure('breaks', num(data.breaks.length), 'breaks (' + num(s.detectorBreaks) + ' by the detector)'))
  var a = s.agreement
  if (a.agree + a.disagree + a.dshOnly + a.providerOnly) {
    // the provider's own verdict beside the detector's reason (Anthropic's cache diagnostics)
    var agreed = 'provider agreed on ' + num(a.agree) + ' of ' + num(a.agree + a.disagree) + ' breaks both saw'
    if (a.providerOnly) agreed += '; ' + num(a.providerOnly) + ' provider-only'
    if (a.dshOnly) agreed += '; ' + num(a.dshOnly) + ' DSH-only'
    figures.appendChild(figure('agreement', a.disagree ? num(a.disagree) + ' disagree' : 'agree', agreed))
  }
  /** One cause's chip: its figure in bold, its name, and what follows the name. */
  function causeChip(cause, figure, after) {
    var item = el('span', 'cause')
    item.dataset.cause = cause
    item.appendChild(el('b', null, figure))
    item.appendChild(document.createTextNode(' ' + cause.replace(/_/g, ' ') + after))
    return item
  }
  var causes = document.getElementById('causes')
  causes.appendChild(el('span', 'note', 'Uncached tokens by cause:'))
  data.causes.forEach(function (cause) {
    var value = s.uncached.byCause[cause]
    if (value) causes.appendChild(causeChip(cause, num(value), ''))
  })
  if (s.money) {
    var money = el('div', 'causes')
    money.id = 'money-causes'
    money.appendChild(el('span', 'note', 'Money by cause:'))
    data.causes.forEach(function (cause) {
      var sum = s.money.byCause[cause]
      if (sum) money.appendChild(causeChip(cause, usd(sum.billed), sum.breakCost > 0 ? ' (break ' + usd(sum.breakCost) + ')' : ''))
    })
    causes.parentNode.insertBefore(money, causes.nextSibling)
  }
  var notes = []
  if (data.ttl.status === 'pending') notes.push('Idle gaps are not judged against a cache TTL: ' + data.ttl.note + '.')
  else if (data.ttl.status === 'unbounded') notes.push('Idle gaps are not judged: ' + data.ttl.note + '.')
  else notes.push('Idle gaps beyond the ' + data.ttl.profile + ' cache TTL (' + data.ttl.name + ', ' + duration(data.ttl.ttlMs).slice(1) + ') are marked in red.')
  if (s.withUsage < s.requests) notes.push('Rows without provider usage show sizes from the logged bytes (~4 bytes a token), cached part estimated from the header.')
  document.getElementById('notes').textContent = notes.join(' ')
  var list = document.getElementById('breaks-list')
  data.breaks.slice(0, 40).forEach(function (item, index) {
    var row = rows[item.request]
    var button = el('button', null, '! #' + (item.request + 1) + ' ' + item.label + ' (turn ' + row[F.turn] + ')')
    button.title = item.explanation
    button.dataset.headerChanged = item.headerChanged ? '1' : '0'
    button.dataset.break = index
    button.addEventListener('click', function () { scrollToRequest(item.request); showBreak(index) })
    list.appendChild(button)
  })
  if (data.breaks.length > 40) list.appendChild(el('span', 'note', '… and ' + (data.breaks.length - 40) + ' more in the timeline'))

  // ---- the items of the timeline: markers before the request they precede
  var items = []
  var markerAt = 0
  var markers = data.markers
  var rowItem = new Array(rows.length)
  for (var r = 0; r <= rows.length; r++) {
    while (markerAt < markers.length && markers[markerAt].before <= r) items.push({ marker: markers[markerAt++] })
    if (r < rows.length) { rowItem[r] = items.length; items.push({ row: r }) }
  }
  var maxSize = 1
  var sizes = new Float64Array(rows.length)
  for (var i = 0; i < rows.length; i++) {
    var row = rows[i]
    var bytes = row[F.toolsBytes] + row[F.systemBytes] + row[F.historyBytes]
    sizes[i] = row[F.input] >= 0 ? row[F.input] : bytes / 4
    if (sizes[i] > maxSize) maxSize = sizes[i]
  }

  var viewport = document.getElementById('viewport')
  var spacer = document.getElementById('spacer')
  spacer.style.height = items.length * ROW + 'px'
  var selected = -1

  function markerText(m) {
    if (m.kind === 'tools') {
      var parts = []
      if (m.added.length) parts.push('tools added: ' + m.added.join(', '))
      if (m.removed.length) parts.push('tools removed: ' + m.removed.join(', '))
      return parts.join('; ') || 'tool list announced'
    }
    if (m.kind === 'compaction') return 'compaction (' + m.reason + '): summary of ' + num(m.summaryChars) + ' characters replaces the history'
    if (m.kind === 'resume') return 'session resumed'
    return 'turn ' + m.turn + ' failed: ' + m.message
  }

  function drawRow(index) {
    var row = rows[index]
    var node = el('div', 'row' + (row[F.failed] ? ' failed' : '') + (index === selected ? ' selected' : ''))
    node.dataset.request = index
    node.appendChild(el('span', 'time', clock(row[F.time])))
    var gap = el('span', 'gap' + (row[F.beyondTtl] === 1 ? ' beyond' : ''), duration(row[F.gapMs]))
    if (row[F.beyondTtl] === 1) gap.title = 'idle longer than the cache TTL'
    node.appendChild(gap)
    var bar = el('span', 'bar')
    var total = row[F.toolsBytes] + row[F.systemBytes] + row[F.historyBytes]
    var width = (sizes[index] / maxSize) * 100
    ;['tools', 'system', 'history'].forEach(function (part) {
      var share = total ? row[F[part + 'Bytes']] / total : 0
      var seg = el('span', part)
      seg.style.width = (width * share).toFixed(3) + '%'
      bar.appendChild(seg)
    })
    var cached = -1, estimated = false
    if (row[F.input] > 0) cached = row[F.cacheRead] / row[F.input]
    else if (row[F.input] < 0 && index > 0 && rows[index - 1][F.header] === row[F.header]) { cached = total ? (row[F.toolsBytes] + row[F.systemBytes]) / total : 0; estimated = true }
    if (cached > 0) {
      var shade = el('span', 'cached' + (estimated ? ' estimated' : ''))
      shade.style.width = (width * Math.min(1, cached)).toFixed(3) + '%'
      bar.appendChild(shade)
    }
    bar.title = 'tools ' + num(row[F.toolsBytes]) + ' B, system ' + num(row[F.systemBytes]) + ' B, history ~' + num(row[F.historyBytes]) + ' B'
    node.appendChild(bar)
    node.appendChild(el('span', 'tokens', row[F.input] >= 0 ? num(row[F.input]) + ' / ' + num(row[F.cacheRead]) : (row[F.failed] ? 'no response' : 'no usage')))
    var reason = REASONS[row[F.reason]]
    node.appendChild(el('span', 'reason' + (reason ? ' ' + reason : ''), reason || 'same'))
    node.appendChild(el('span', 'turn', row[F.turn] + '.' + row[F.step]))
    // the break button sits in the narrow column before what was said, as the column heads are laid out
    var cell = el('span')
    if (row[F.break] >= 0) {
      var button = el('button', 'break', '!')
      button.dataset.break = row[F.break]
      button.title = 'why the prefix broke here'
      cell.appendChild(button)
    }
    node.appendChild(cell)
    // what was said: the turn's prompt on its first step, then the first line of the answer
    var prompt = row[F.step] === 1 ? data.prompts[row[F.turn]] : undefined
    var said = el('span', 'said')
    if (prompt !== undefined) said.appendChild(el('span', 'asked', '> ' + prompt.replace(/\s+/g, ' ').trim()))
    if (data.answers[index]) said.appendChild(el('span', 'answer', data.answers[index]))
    said.title = said.textContent
    node.appendChild(said)
    return node
  }

  var drawn = ''
  function draw() {
    var first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - 8)
    var last = Math.min(items.length, Math.ceil((viewport.scrollTop + viewport.clientHeight) / ROW) + 8)
    var key = first + ':' + last + ':' + selected
    if (key === drawn) return
    drawn = key
    var fragment = document.createDocumentFragment()
    for (var at = first; at < last; at++) {
      var item = items[at]
      var node
      if (item.marker) {
        node = el('div', 'marker ' + item.marker.kind)
        node.appendChild(el('span', 'what', markerText(item.marker)))
      } else node = drawRow(item.row)
      node.classList.add('item')
      node.style.top = at * ROW + 'px'
      fragment.appendChild(node)
    }
    spacer.replaceChildren(fragment)
  }
  var pending = false
  viewport.addEventListener('scroll', function () {
    if (pending) return
    pending = true
    requestAnimationFrame(function () { pending = false; draw() })
  })
  spacer.addEventListener('click', function (event) {
    var button = event.target.closest('button.break')
    if (button) { showBreak(Number(button.dataset.break)); return }
    var node = event.target.closest('.row')
    if (node) showRequest(Number(node.dataset.request))
  })
  function scrollToRequest(index) {
    var top = rowItem[index] * ROW
    if (top < viewport.scrollTop || top > viewport.scrollTop + viewport.clientHeight - ROW) viewport.scrollTop = Math.max(0, top - 3 * ROW)
    selected = index
    draw()
  }
  window.dshView = { showBreak: function (i) { showBreak(i) }, showRequest: function (i) { showRequest(i) }, scrollToRequest: scrollToRequest }
  /*DETAIL*/
  draw()
  // drawn and laid out: the next frame is the first that shows the page
  requestAnimationFrame(function () { document.body.dataset.ready = String(performance.now()) })
})()
`.replace('/*DETAIL*/', () => DETAIL_SCRIPT)
