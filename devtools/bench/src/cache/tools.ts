import type { ToolsStaticConfig } from 'dsh-tools-static'

/** One tool of the tools-static plugin's config. */
type StaticTool = ToolsStaticConfig['tools'][number]

/** A tool as this benchmark configures it; the delays are chosen per restart. */
export type BenchTool = Omit<StaticTool, 'delayMs' | 'afterReadyMs'>

/** One tools-static plugin entry of the simulated deployment. */
export interface ToolGroup {
  id: string
  tools: BenchTool[]
}

const text = (description: string) => ({ type: 'string', description })
const integer = (description: string, minimum = 0) => ({ type: 'integer', minimum, description })
const flag = (description: string) => ({ type: 'boolean', description })
const object = (properties: Record<string, object>, required: string[] = []) =>
  ({ type: 'object', properties, ...required.length ? { required } : {}, additionalProperties: false })

const FILE_EXCERPT = [
  'import { Router } from "express"',
  'import { listOrders, createOrder } from "../services/orders"',
  '',
  'export const orders = Router()',
  '',
  'orders.get("/", async (req, res) => {',
  '  const page = Number(req.query.page ?? 1)',
  '  const items = await listOrders({ page, pageSize: 50 })',
  '  res.json({ page, items })',
  '})',
  '',
  'orders.post("/", async (req, res) => {',
  '  const order = await createOrder(req.body)',
  '  res.status(201).json(order)',
  '})',
].join('\n')

const TEST_OUTPUT = [
  ' RUN  v1.6.0 /workspace/shop-api',
  ' ✓ tests/orders.spec.ts (12 tests) 48ms',
  ' ✓ tests/customers.spec.ts (9 tests) 31ms',
  ' × tests/pagination.spec.ts > lists the second page',
  '   AssertionError: expected 50 items, got 0',
  ' Test Files  1 failed | 2 passed (3)',
  '      Tests  1 failed | 21 passed (22)',
].join('\n')

/** The five plugins a deployment ships with: 40 tools, shaped like a coding agent's usual kit. */
export const TOOL_GROUPS: ToolGroup[] = [
  {
    id: 'filesystem',
    tools: [
      { name: 'read_file', description: 'Read a text file from the workspace. Returns the file with line numbers; use offset and limit for large files.', parameters: object({ path: text('Path relative to the workspace root.'), offset: integer('First line to read (1-based).', 1), limit: integer('Maximum number of lines to return.', 1) }, ['path']), result: FILE_EXCERPT },
      { name: 'write_file', description: 'Create or overwrite a file with the given content. Parent directories are created as needed.', parameters: object({ path: text('Path relative to the workspace root.'), content: text('The complete new file content.') }, ['path', 'content']), result: 'wrote file' },
      { name: 'edit_file', description: 'Replace an exact string in a file. The old string must occur exactly once unless replace_all is set.', parameters: object({ path: text('Path relative to the workspace root.'), old_string: text('Text to replace, copied exactly.'), new_string: text('Replacement text.'), replace_all: flag('Replace every occurrence.') }, ['path', 'old_string', 'new_string']), result: 'edited 1 occurrence' },
      { name: 'list_directory', description: 'List the entries of a directory, directories first, with sizes.', parameters: object({ path: text('Directory relative to the workspace root.'), depth: integer('How many levels to descend.', 1) }, ['path']), result: 'src/\ntests/\npackage.json 1.2 kB\ntsconfig.json 402 B' },
      { name: 'glob', description: 'Find files whose paths match a glob pattern, newest first.', parameters: object({ pattern: text('Glob such as src/**/*.ts.'), cwd: text('Directory to search from.') }, ['pattern']), result: 'src/routes/orders.ts\nsrc/services/orders.ts\ntests/orders.spec.ts' },
      { name: 'grep', description: 'Search file contents with a regular expression. Returns matching lines with their paths and line numbers.', parameters: object({ pattern: text('Regular expression (ripgrep syntax).'), path: text('File or directory to search.'), glob: text('Only search files matching this glob.'), ignore_case: flag('Match case-insensitively.'), context: integer('Lines of context around each match.') }, ['pattern']), result: 'src/services/orders.ts:14:  const offset = page * pageSize\nsrc/services/orders.ts:15:  return db.orders.find().skip(offset).limit(pageSize)' },
      { name: 'move_file', description: 'Move or rename a file or directory inside the workspace.', parameters: object({ from: text('Current path.'), to: text('New path.') }, ['from', 'to']) },
      { name: 'delete_file', description: 'Delete a file. Directories are refused unless recursive is set.', parameters: object({ path: text('Path to delete.'), recursive: flag('Delete a directory and everything in it.') }, ['path']) },
    ],
  },
  {
    id: 'shell',
    tools: [
      { name: 'bash', description: 'Run a shell command in the workspace and return its combined output. Commands time out after timeout_ms.', parameters: object({ command: text('The command line to run.'), timeout_ms: integer('Time limit in milliseconds.', 1), background: flag('Run in the background and return a shell id.') }, ['command']), result: 'exit 0' },
      { name: 'bash_output', description: 'Read new output from a background shell started by bash.', parameters: object({ shell_id: text('Id returned by bash.') }, ['shell_id']) },
      { name: 'kill_shell', description: 'Stop a background shell.', parameters: object({ shell_id: text('Id returned by bash.') }, ['shell_id']) },
      { name: 'run_tests', description: 'Run the project test suite, or the tests matching a filter, and summarise failures.', parameters: object({ filter: text('Only run tests whose file or name matches.'), watch: flag('Keep watching for changes.') }), result: TEST_OUTPUT },
      { name: 'typecheck', description: 'Run the TypeScript compiler without emitting and report errors by file.', parameters: object({ project: text('Path of the tsconfig to check.') }), result: 'no type errors' },
      { name: 'lint', description: 'Run the linter on the given paths and report problems; fix applies safe fixes.', parameters: object({ paths: { type: 'array', items: { type: 'string' }, description: 'Files or directories.' }, fix: flag('Apply automatic fixes.') }), result: '0 problems' },
      { name: 'format_code', description: 'Format files with the project formatter.', parameters: object({ paths: { type: 'array', items: { type: 'string' }, description: 'Files to format.' } }, ['paths']) },
      { name: 'install_package', description: 'Add a dependency with the project package manager.', parameters: object({ name: text('Package name, optionally with a version.'), dev: flag('Add as a development dependency.') }, ['name']) },
    ],
  },
  {
    id: 'git',
    tools: [
      { name: 'git_status', description: 'Show the working tree status: staged, unstaged and untracked files.', parameters: object({}), result: 'M src/services/orders.ts\n?? tests/pagination.spec.ts' },
      { name: 'git_diff', description: 'Show changes between the working tree, the index or two commits.', parameters: object({ staged: flag('Diff the index instead of the working tree.'), base: text('Commit or branch to compare against.'), path: text('Limit the diff to this path.') }), result: '-  const offset = page * pageSize\n+  const offset = (page - 1) * pageSize' },
      { name: 'git_log', description: 'Show recent commits with author, date and subject.', parameters: object({ limit: integer('Number of commits.', 1), path: text('Only commits touching this path.') }), result: 'a41c2e0 Add order pagination\n7be01d9 Customers endpoint' },
      { name: 'git_commit', description: 'Commit staged changes with a message; all stages tracked changes first.', parameters: object({ message: text('Commit message.'), all: flag('Stage tracked changes before committing.') }, ['message']), result: 'committed 3f9d1aa' },
      { name: 'git_branch', description: 'List, create or delete branches.', parameters: object({ create: text('Name of a branch to create.'), delete: text('Name of a branch to delete.') }) },
      { name: 'git_checkout', description: 'Switch branches or restore files from a commit.', parameters: object({ target: text('Branch, commit or path.'), create: flag('Create the branch first.') }, ['target']) },
      { name: 'git_blame', description: 'Show who last changed each line of a file.', parameters: object({ path: text('File to annotate.'), start: integer('First line.', 1), end: integer('Last line.', 1) }, ['path']) },
      { name: 'git_show', description: 'Show a commit: message and patch.', parameters: object({ commit: text('Commit id or ref.') }, ['commit']) },
    ],
  },
  {
    id: 'web',
    tools: [
      { name: 'web_search', description: 'Search the web and return titles, URLs and snippets of the top results.', parameters: object({ query: text('Search terms.'), max_results: integer('Number of results.', 1) }, ['query']), result: '1. Offset pagination pitfalls — https://example.org/pagination\n2. Express query parsing — https://example.org/express-query' },
      { name: 'web_fetch', description: 'Fetch a URL and return its main content as Markdown.', parameters: object({ url: text('Absolute http(s) URL.'), max_chars: integer('Truncate the result to this many characters.', 1) }, ['url']), result: '# Offset pagination\nPages are usually 1-based in APIs; convert to a 0-based offset before multiplying by the page size.' },
      { name: 'http_request', description: 'Send an HTTP request to a local development server and return status, headers and body.', parameters: object({ method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], description: 'HTTP method.' }, url: text('URL, usually http://localhost.'), body: text('Request body.') }, ['method', 'url']), result: '200 OK\n{"page":2,"items":[…50 items…]}' },
      { name: 'docs_lookup', description: 'Look up API documentation of a library symbol.', parameters: object({ library: text('Package name.'), symbol: text('Function, class or option.') }, ['library', 'symbol']) },
      { name: 'package_info', description: 'Show the latest version, licence and weekly downloads of a package.', parameters: object({ name: text('Package name.') }, ['name']) },
      { name: 'download_file', description: 'Download a URL into the workspace.', parameters: object({ url: text('Absolute http(s) URL.'), path: text('Destination path.') }, ['url', 'path']) },
      { name: 'open_issue', description: 'Read an issue or pull request of the project tracker with its comments.', parameters: object({ number: integer('Issue number.', 1) }, ['number']), result: '#128 Second page of /orders is empty\nReported by ops: GET /orders?page=2 returns no items.' },
      { name: 'post_comment', description: 'Post a comment on an issue or pull request.', parameters: object({ number: integer('Issue number.', 1), body: text('Markdown body.') }, ['number', 'body']) },
    ],
  },
  {
    id: 'tasks',
    tools: [
      { name: 'todo_write', description: 'Replace the task list. Each item has content and a status; keep exactly one item in progress.', parameters: object({ items: { type: 'array', items: object({ content: text('What to do.'), status: { type: 'string', enum: ['pending', 'in_progress', 'done'] } }, ['content', 'status']), description: 'The whole list.' } }, ['items']), result: 'task list updated' },
      { name: 'todo_read', description: 'Read the current task list.', parameters: object({}) },
      { name: 'memory_save', description: 'Save a fact about the project or the user for later sessions.', parameters: object({ fact: text('One self-contained sentence.'), topic: text('Short topic label.') }, ['fact']) },
      { name: 'memory_search', description: 'Search saved facts.', parameters: object({ query: text('What to look for.') }, ['query']) },
      { name: 'ask_user', description: 'Ask the user a question and wait for the answer. Use only when the task cannot continue without it.', parameters: object({ question: text('The question.'), options: { type: 'array', items: { type: 'string' }, description: 'Suggested answers.' } }, ['question']) },
      { name: 'plan_update', description: 'Record the current plan as numbered steps.', parameters: object({ steps: { type: 'array', items: { type: 'string' }, description: 'Plan steps.' } }, ['steps']) },
      { name: 'notify', description: 'Send a short desktop notification to the user.', parameters: object({ message: text('Notification text.') }, ['message']) },
      { name: 'spawn_subagent', description: 'Delegate a self-contained task to a sub-agent and return its final report.', parameters: object({ task: text('Full description of the task.'), tools: { type: 'array', items: { type: 'string' }, description: 'Tool names the sub-agent may use.' } }, ['task']) },
    ],
  },
]

/** The sixth plugin: a browser automation server whose tools arrive one at a time, mid-session. */
export const ADDED_GROUP_ID = 'browser'
export const ADDED_TOOLS: BenchTool[] = [
  { name: 'browser_navigate', description: 'Open a URL in the controlled browser and wait for the page to load.', parameters: object({ url: text('Absolute URL.') }, ['url']), result: 'loaded http://localhost:3000/orders?page=2 (200)' },
  { name: 'browser_snapshot', description: 'Return an accessibility snapshot of the current page: roles, names and element references.', parameters: object({ selector: text('Limit the snapshot to this CSS selector.') }), result: 'table "Orders" [ref=e12]\n  row "#1051 Ada Lovelace 42.00" [ref=e13]\n  button "Next page" [ref=e40]' },
  { name: 'browser_click', description: 'Click an element by the reference a snapshot returned.', parameters: object({ ref: text('Element reference such as e40.'), double: flag('Double-click.') }, ['ref']), result: 'clicked e40; navigated to /orders?page=3' },
]

/** Names of the 40 shipped tools, in plugin order: the "core" list of the `tool_order` configuration. */
export const CORE_TOOL_NAMES = TOOL_GROUPS.flatMap((group) => group.tools.map((tool) => tool.name))
