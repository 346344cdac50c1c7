import { CLIENT_SCRIPT } from './client.ts'
import type { SessionView } from './model.ts'
import { encodePayload, escapeHtml, scriptSafeJson } from './payload.ts'
import { PAGE_STYLE } from './style.ts'
import { keepaliveLine } from './keepalive.ts'
import type { ViewTree } from './tree.ts'
import { TREE_SCRIPT } from './tree-script.ts'

// Nothing may leave the page: no fetches, frames, fonts or images from anywhere, inline code only.
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

/**
 * One self-contained HTML page for a session: the stylesheet, the data (as inert JSON) and the script
 * that draws it are all inline, so the file works offline from `file://`. Session text reaches the page
 * only as JSON and is put into the document as text nodes, never as markup.
 */
export function renderPage(view: SessionView, tree: ViewTree = { parent: null, children: [] }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>DSH session ${escapeHtml(view.source)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
  <h1>DSH session <span class="source" id="source"></span></h1>
  <div class="figures" id="figures"></div>
  <div class="causes" id="causes"></div>
  <div class="breaks-list" id="breaks-list"></div>
  <div class="note" id="notes"></div>${view.keepalive ? `
  <div class="note" id="keepalive">${escapeHtml(keepaliveLine(view.keepalive))}</div>` : ''}
  <div class="tree" id="tree"></div>
</header>
<main>
  <section class="timeline">
    <div class="legend">Prompt of each request: <span><i class="swatch" style="background:var(--tools)"></i>tools</span><span><i class="swatch" style="background:var(--system)"></i>system</span><span><i class="swatch" style="background:var(--history)"></i>history</span><span>▨ cached part</span><span>bar length: prompt tokens</span></div>
    <div class="columns"><span>time</span><span>idle gap</span><span>prompt</span><span>tokens in / cached</span><span>header</span><span>turn.step</span><span></span><span>said</span></div>
    <div class="viewport" id="viewport"><div class="spacer" id="spacer"></div></div>
  </section>
  <section class="detail" id="detail"><p class="empty">Click a request to see the tools and system bytes it sent, or a <b>!</b> to see why its prefix broke.</p></section>
</main>
<script type="application/json" id="dsh-view-data">${scriptSafeJson({ ...encodePayload(view), tree })}</script>
<script>${CLIENT_SCRIPT}
${TREE_SCRIPT}</script>
</body>
</html>
`
}
