/**
 * The detail pane of the page's script (spliced into `CLIENT_SCRIPT`, sharing its scope): a request's
 * exact tools and system bytes, and a break's explanation with the two prefixes side by side.
 */
export const DETAIL_SCRIPT = String.raw`
  var detail = document.getElementById('detail')
  function facts(pairs) {
    var dl = el('dl')
    pairs.forEach(function (pair) {
      if (pair[1] === undefined || pair[1] === null || pair[1] === '') return
      var dt = el('dt', null, pair[0])
      var dd = el('dd', null, pair[1])
      if (pair[2]) dd.dataset.field = pair[2]
      dl.appendChild(dt)
      dl.appendChild(dd)
    })
    return dl
  }
  function block(text, field) {
    var pre = el('pre', null, text)
    if (field) pre.dataset.field = field
    return pre
  }
  function showRequest(index) {
    selected = index
    drawn = ''
    draw()
    var row = rows[index]
    var header = data.headers[row[F.header]]
    detail.replaceChildren()
    detail.dataset.showing = 'request'
    detail.dataset.request = index
    detail.appendChild(el('h2', null, 'Request ' + (index + 1) + ' of ' + rows.length))
    var usage = row[F.input] >= 0
      ? num(row[F.input]) + ' in (' + num(row[F.cacheRead]) + ' cached, ' + num(row[F.cacheWrite]) + ' written), ' + num(row[F.output]) + ' out'
      : (row[F.failed] ? 'no response was logged' : 'not reported')
    detail.appendChild(facts([
      ['time', clock(row[F.time])], ['turn.step', row[F.turn] + '.' + row[F.step]], ['step/start seq', row[F.seq], 'seq'],
      ['user prompt of the turn', data.prompts[row[F.turn]], 'prompt'],
      ['header', (REASONS[row[F.reason]] || 'same as before') + ' (logged at seq ' + header.seq + ')'],
      ['model', header.model, 'model'], ['usage', usage], ['uncached cause', data.causes[row[F.cause]].replace(/_/g, ' '), 'cause'],
      ['sizes', 'tools ' + num(header.bytes.tools) + ' B, system ' + num(header.bytes.system) + ' B, history ~' + num(row[F.historyBytes]) + ' B'],
      ['deferred tools', header.deferredTools.join(', ')],
    ]))
    if (row[F.break] >= 0) {
      var open = el('button', 'break', '!')
      open.addEventListener('click', function () { showBreak(row[F.break]) })
      detail.appendChild(open)
      detail.appendChild(document.createTextNode(' this request broke the prefix: see why'))
    }
    detail.appendChild(el('h2', null, header.placeholder ? 'Tools (not stored in this log: ' + header.toolsText + ')' : 'Tools (' + header.toolNames.length + '): ' + header.toolNames.join(', ')))
    detail.appendChild(block(header.toolsText, 'tools'))
    detail.appendChild(el('h2', null, 'System prompt (' + num(header.bytes.system) + ' bytes)'))
    detail.appendChild(block(header.system, 'system'))
  }
  function side(title, part) {
    var box = el('div')
    box.appendChild(el('h2', null, title))
    var pre = el('pre')
    pre.appendChild(document.createTextNode(part.before))
    var first = Array.from(part.after)[0] || ''
    // a newline or the end of the text would be an invisible mark
    pre.appendChild(el('mark', null, first === '' ? '∅' : first === '\n' ? '↵\n' : first))
    pre.appendChild(document.createTextNode(part.after.slice(first.length)))
    box.appendChild(pre)
    return box
  }
  function providerText(p) {
    if (p.pending) return 'pending (the provider answered before its comparison finished)'
    if (p.reason === null) return 'no divergence'
    var text = p.known ? p.reason : p.reason + ' (unknown provider reason)'
    return p.missedTokens === null ? text : text + ', ' + num(p.missedTokens) + ' tokens missed'
  }
  function showBreak(index) {
    var item = data.breaks[index]
    scrollToRequest(item.request)
    var row = rows[item.request]
    detail.replaceChildren()
    detail.dataset.showing = 'break'
    detail.dataset.break = index
    detail.appendChild(el('h2', null, 'Break at request ' + (item.request + 1) + ' (turn ' + row[F.turn] + ', step ' + row[F.step] + ')'))
    var d = item.detector
    detail.appendChild(el('p', 'explanation', item.explanation)).dataset.field = 'explanation'
    detail.appendChild(facts([
      ['detector', d ? d.reason : 'no prompt-cache/break event for this request (the detector saw no fall in cache reads, or was not running)', 'reason'],
      ['all reasons', d ? d.allReasons.join(', ') : ''],
      ['cache reads', d ? num(d.previousCacheReadTokens) + ' → ' + num(d.currentCacheReadTokens) : ''],
      ['changed tools', d ? d.changedToolNames.join(', ') : ''],
      ['provider', d && d.provider ? providerText(d.provider) : (d ? 'no verdict (the route asks the provider for none)' : ''), 'provider'],
      ['agreement', d && d.agreement ? d.agreement : '', 'agreement'],
      ['header', item.previousHeader === null ? '' : 'seq ' + data.headers[item.previousHeader].seq + ' → seq ' + data.headers[item.header].seq],
    ]))
    var diff = item.diff
    if (!diff) {
      detail.appendChild(el('p', 'empty', item.previousHeader !== null && data.headers[item.previousHeader].placeholder
        ? 'This log stores a placeholder for the header bytes, so the prefixes cannot be compared.'
        : 'The two prefixes (tools, then system prompt) are the same bytes; the model or the deferred tools changed, or the cache lapsed.'))
      var before = item.previousHeader === null ? null : data.headers[item.previousHeader]
      var after = data.headers[item.header]
      if (before && before.model !== after.model) detail.appendChild(facts([['model', before.model + ' → ' + after.model, 'model']]))
      return
    }
    detail.appendChild(facts([
      ['first differing byte', num(diff.offset) + ' of the prefix', 'offset'],
      ['part', diff.part + ' (' + diff.cause.replace(/_/g, ' ') + ')', 'part'],
      ['section', diff.section || (diff.part === 'system' ? 'not known (the log keeps the rendered prompt only)' : ''), 'section'],
      ['where', diff.summary, 'summary'],
    ]))
    detail.appendChild(el('p', 'note', 'prefix = JSON.stringify(tools) + "\\n" + system; the first differing character is marked.'))
    var sides = el('div', 'sides')
    sides.appendChild(side('before (request ' + item.request + ')', diff.previous))
    sides.appendChild(side('this request', diff.current))
    detail.appendChild(sides)
  }
`
