/** The page's stylesheet: one inline `<style>`, no fonts or images from anywhere. */
export const PAGE_STYLE = `
:root { --tools: #7c5cc4; --system: #2f7fbf; --history: #3a9a6a; --cached: rgba(255,255,255,.55); --line: #d8dde3;
  --ink: #1d232b; --muted: #5d6773; --warn: #c2410c; --bg: #f6f7f9; --row: 26px; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
header { padding: 12px 18px 8px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { font-size: 16px; margin: 0 0 8px; font-weight: 600; }
h1 .source { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 500; }
h2 { font-size: 13px; margin: 12px 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.figures { display: flex; flex-wrap: wrap; gap: 8px; }
.figure { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 5px 10px; min-width: 92px; }
.figure .value { display: block; font-size: 17px; font-weight: 600; font-variant-numeric: tabular-nums; }
.figure .label { color: var(--muted); font-size: 11px; }
.tree ul { list-style: none; margin: 4px 0 0; padding-left: 14px; }
.tree-child span { margin-right: 10px; }
.tree-id { font-family: ui-monospace, Menlo, Consolas, monospace; }
.tree-mode { color: var(--muted); }
.tree-use { font-variant-numeric: tabular-nums; }
.causes { display: flex; flex-wrap: wrap; gap: 4px 14px; margin-top: 8px; }
.cause { font-variant-numeric: tabular-nums; }
.cause b { font-weight: 600; }
.note { color: var(--muted); font-size: 12px; margin-top: 6px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 6px 10px 2px; color: var(--muted); font-size: 12px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
main { display: grid; grid-template-columns: minmax(520px, 1fr) minmax(360px, 42%); gap: 0; }
.timeline { border-right: 1px solid var(--line); background: #fff; }
.columns, .row, .marker { display: grid; grid-template-columns: 92px 62px minmax(160px, 1fr) 118px 64px 56px 28px minmax(120px, 1fr); align-items: center;
  gap: 6px; padding: 0 10px; height: var(--row); }
.columns { color: var(--muted); font-size: 11px; border-bottom: 1px solid var(--line); height: 24px; }
.viewport { height: calc(100vh - 262px); min-height: 260px; overflow-y: auto; position: relative; }
.spacer { position: relative; }
.item { position: absolute; left: 0; right: 0; }
.row { cursor: pointer; border-bottom: 1px solid #f0f2f4; font-variant-numeric: tabular-nums; }
.row:hover { background: #f3f6fa; }
.row.selected { background: #e7effa; }
.row.failed .bar { opacity: .45; }
.time, .gap, .tokens, .turn { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.gap.beyond { color: var(--warn); font-weight: 600; }
.bar { position: relative; height: 14px; display: flex; background: #eef0f3; border-radius: 3px; overflow: hidden; }
.bar span { display: block; height: 100%; }
.bar .tools { background: var(--tools); } .bar .system { background: var(--system); } .bar .history { background: var(--history); }
.bar .cached { position: absolute; left: 0; top: 0; bottom: 0; background: repeating-linear-gradient(135deg, var(--cached) 0 3px, transparent 3px 6px);
  border-right: 2px solid #1d232b; }
.bar .cached.estimated { border-right-style: dashed; }
.reason { font-size: 11px; border-radius: 9px; padding: 1px 7px; justify-self: start; background: #eef0f3; color: var(--muted); }
.reason.change { background: #fde9d9; color: var(--warn); } .reason.initial { background: #e0ecfa; color: #1f5f99; }
.reason.resume { background: #e3f4ea; color: #23734a; }
.break { border: 0; background: var(--warn); color: #fff; border-radius: 50%; width: 20px; height: 20px; cursor: pointer; font-weight: 700; padding: 0; }
.marker { color: var(--muted); font-size: 12px; background: #fafbfc; border-bottom: 1px dashed var(--line); }
.said { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; color: var(--muted); }
.said .asked { color: var(--ink); margin-right: 8px; }
.marker .what { grid-column: 1 / -1; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.marker.tools .what::before { content: "⇄ "; } .marker.compaction .what::before { content: "⤓ "; }
.marker.resume .what::before { content: "↻ "; } .marker.turn-failed { color: var(--warn); } .marker.turn-failed .what::before { content: "✕ "; }
.detail { padding: 12px 16px; height: calc(100vh - 212px); min-height: 284px; overflow: auto; }
.detail .empty { color: var(--muted); }
.detail dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 12px; margin: 0 0 8px; }
.detail dt { color: var(--muted); } .detail dd { margin: 0; font-variant-numeric: tabular-nums; word-break: break-word; }
pre { font: 12px/1.45 ui-monospace, Menlo, Consolas, monospace; background: var(--bg); border: 1px solid var(--line); border-radius: 4px;
  padding: 8px; margin: 4px 0 10px; white-space: pre-wrap; word-break: break-all; max-height: 40vh; overflow: auto; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
.sides pre { max-height: 30vh; }
mark { background: #ffd8a8; color: inherit; outline: 1px solid var(--warn); }
.breaks-list { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 6px; }
.breaks-list button { border: 1px solid var(--line); background: #fff; border-radius: 4px; padding: 2px 8px; cursor: pointer; font-size: 12px; }
`
