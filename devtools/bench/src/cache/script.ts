import { ADDED_TOOLS, type BenchTool } from './tools.ts'

/** Turns one process lives for before the simulated restart. */
export const TURNS_PER_LIFETIME = 3

/**
 * The user's side of one 30-turn session, fixing a pagination bug. `/call NAME {json}` lines make the
 * emulated model call that tool (as the offline `scripted-echo` model would); the rest are echoed.
 */
export const TURNS: string[] = [
  'Customers report that the second page of GET /orders is empty. Can you look into it?',
  '/call open_issue {"number":128}',
  '/call grep {"pattern":"offset","path":"src/services"}',
  '/call read_file {"path":"src/routes/orders.ts","limit":40}',
  'The dev server is already running on port 3000. Let us reproduce it in a browser.',
  '/call browser_navigate {"url":"http://localhost:3000/orders?page=2"}',
  '/call http_request {"method":"GET","url":"http://localhost:3000/orders?page=2"}',
  '/call git_log {"limit":5,"path":"src/services/orders.ts"}',
  'So the page number is treated as zero-based somewhere. Where?',
  '/call edit_file {"path":"src/services/orders.ts","old_string":"page * pageSize","new_string":"(page - 1) * pageSize"}',
  '/call run_tests {"filter":"pagination"}',
  'Why does the pagination test still fail after the edit?',
  '/call web_fetch {"url":"https://example.org/pagination","max_chars":2000}',
  'Add a regression test for page 2 and page 3, please.',
  '/call browser_snapshot {"selector":"table"}',
  '/call write_file {"path":"tests/pagination.spec.ts","content":"it(\\"lists page 2\\", async () => { /* … */ })"}',
  '/call run_tests {}',
  '/call typecheck {"project":"tsconfig.json"}',
  'Looks good. What else could break with one-based pages?',
  '/call grep {"pattern":"page \\\\*","path":"src","ignore_case":true}',
  '/call lint {"paths":["src","tests"]}',
  'Please double-check the UI once more.',
  '/call browser_click {"ref":"e40"}',
  '/call git_diff {}',
  '/call todo_write {"items":[{"content":"Fix offset","status":"done"},{"content":"Regression test","status":"done"},{"content":"Changelog","status":"in_progress"}]}',
  'Write a one-line changelog entry for this fix.',
  '/call git_status {}',
  '/call git_commit {"message":"Fix one-based pagination offset (#128)","all":true}',
  '/call post_comment {"number":128,"body":"Fixed in 3f9d1aa: pages are one-based again."}',
  'Thanks, that is all for today.',
]

/** Tools of the sixth plugin and the turn (1-based) before which each one is loaded, mid-lifetime. */
export const ADDITIONS: { turn: number; tool: BenchTool }[] = [
  { turn: 5, tool: ADDED_TOOLS[0]! },
  { turn: 14, tool: ADDED_TOOLS[1]! },
  { turn: 23, tool: ADDED_TOOLS[2]! },
]

export const LIFETIMES = Math.ceil(TURNS.length / TURNS_PER_LIFETIME)
