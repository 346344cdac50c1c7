import { PROVIDER_IDS, type ProviderId } from 'dsh-llm'
import { PromptInspectorError } from './errors.ts'

/** Quiet time after the last tool or prompt change before an app counts as settled, in ms. */
export const DEFAULT_SETTLE_MS = 200

export type Command =
  | { command: 'help' }
  | { command: 'inspect'; file: string; json: boolean; settleMs: number }
  | { command: 'diff'; a: string; b: string; json: boolean; settleMs: number; pg: PgInputOptions }
  | { command: 'view'; input: string; out: string | undefined; open: boolean; json: boolean; pg: PgInputOptions; provider?: ProviderId; cacheTtl?: string }
  | { command: 'lint'; file: string; json: boolean; settleMs: number; maxToolBytes: number }
  | { command: 'sessions'; url: string | undefined; json: boolean; pg: PgInputOptions }

/** Where `pg:` inputs are read: the variable holding the URL, and the schema. */
export interface PgInputOptions {
  urlEnv: string
  schema: string
}

export const DEFAULT_PG_URL_ENV = 'DSH_PG_URL'
export const DEFAULT_PG_SCHEMA = 'dsh'

/** Default size of the tool block (`JSON.stringify(tools)`, bytes) above which `lint` reports it. */
export const DEFAULT_MAX_TOOL_BYTES = 16_384

export const USAGE = `Usage:
  dsh-prompt inspect <cordis.yml> [--json] [--settle <ms>]
  dsh-prompt diff <a> <b> [--json] [--settle <ms>] [--pg-url-env <NAME>] [--pg-schema <name>]
  dsh-prompt view <session.jsonl | SESSION-ID | pg:SESSION-ID> [--out page.html] [--open] [--provider <id> [--cache-ttl <name>]]
  dsh-prompt lint <cordis.yml> [--json] [--settle <ms>] [--max-tool-bytes <n>]
  dsh-prompt sessions <pg: | pg:postgres://…> [--json] [--pg-url-env <NAME>] [--pg-schema <name>]
  dsh-prompt --help

inspect  Boot an app file without serving it and show the request prefix the agent loop would send:
         the system prompt section by section, the canonical tool list with each tool's owner and the
         reason for its position, and sha256 fingerprints of the header and its parts.
diff     Compare two request prefixes and name the first byte where they diverge. <a> and <b> are app
         files (.yml/.yaml, inspected as above) or session logs (.jsonl: the last request/header, or
         file.jsonl#SEQ for the header with that seq) or sessions in PostgreSQL (pg:SESSION-ID, or
         pg:SESSION-ID#SEQ). The prefix is JSON.stringify(tools) + "\\n" + system.
view     Write one self-contained HTML page for a session (no network, works from file://): a summary of
         its cache use, one timeline row per model request, and why each prefix break happened. A bare
         SESSION-ID is looked up in the session folder of the current directory.
lint     Boot an app file twice, assemble twice, and report what would keep its prefix from staying
         stable: volatile text in sections, variables and tool descriptions, the working directory in
         the prefix, MCP servers whose tool lists differ between listings, an oversized tool block, a
         prefix past the model's context window. The app file is read once (a FIFO works).
sessions The fleet on PostgreSQL, read without taking any session: the live holders (host, pid, sessions,
         since), the oldest open turn of a held session, and the held sessions with the worst cached share
         of their prompt tokens over the last hour. pg: reads the URL from --pg-url-env's variable.

Options:
  --json         Print one JSON object on stdout instead of text.
  --settle <ms>  Quiet time to wait after the last tools/change before assembling (default ${DEFAULT_SETTLE_MS});
                 delayed dsh-tools-static registrations are always awaited.
  --pg-url-env <NAME>  Variable holding the postgres:// URL for pg: inputs (default ${DEFAULT_PG_URL_ENV}).
  --pg-schema <name>   Schema of the sessions for pg: inputs (default ${DEFAULT_PG_SCHEMA}).
  --out <file>   view: where to write the page (default <session>.html in the current folder).
  --open         view: open the page with the desktop's opener once written.
  --provider <id>      view: judge idle gaps by this provider profile's cache TTL (${PROVIDER_IDS.join(', ')}).
  --cache-ttl <name>   view: the profile's lifetime the session asked for (a model entry's cacheTtl), e.g. 1h.
  --max-tool-bytes <n>  lint: largest tool block (JSON bytes) before it is reported (default ${DEFAULT_MAX_TOOL_BYTES}).
  -h, --help     Print this text.

Exit status: 0 done (diff: identical; lint: nothing found); diff: 1 the prefixes differ, 2 trouble (like diff(1));
lint: 1 findings, 2 the lint could not run; inspect, view: 1 trouble.`

const COMMANDS = ['inspect', 'diff', 'view', 'lint', 'sessions']
const OPTIONS = ['--json', '--settle', '--pg-url-env', '--pg-schema', '--out', '--open', '--provider', '--cache-ttl', '--max-tool-bytes', '--help', '-h']
const VALID_OPTIONS = '--json, --settle <ms>, --pg-url-env <NAME>, --pg-schema <name>, --out <file>, --open, --provider <id>, --cache-ttl <name>, --max-tool-bytes <n>, --help'

/** Parses argv (without node and the script); throws a one-line `USAGE` error on anything unexpected. */
export function parseArgs(argv: readonly string[]): Command {
  const positional: string[] = []
  let json = false
  let settleMs = DEFAULT_SETTLE_MS
  let help = false
  let out: string | undefined
  let open = false
  let maxToolBytes = DEFAULT_MAX_TOOL_BYTES
  let provider: ProviderId | undefined
  let cacheTtl: string | undefined
  const pg: PgInputOptions = { urlEnv: DEFAULT_PG_URL_ENV, schema: DEFAULT_PG_SCHEMA }
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]
    if (arg === '--') {
      positional.push(...argv.slice(index + 1))
      break
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg)
      continue
    }
    const [flag, inline] = splitFlag(arg)
    if (flag === '--json' && inline === undefined) json = true
    else if ((flag === '--help' || flag === '-h') && inline === undefined) help = true
    else if (flag === '--open' && inline === undefined) open = true
    else if (flag === '--out') {
      out = inline ?? argv[++index]
      if (!out) throw new PromptInspectorError('USAGE', '--out needs a file name, e.g. --out session.html')
    } else if (flag === '--provider') {
      const value = inline ?? argv[++index]
      if (!(PROVIDER_IDS as readonly (string | undefined)[]).includes(value)) throw new PromptInspectorError('USAGE', `--provider expects a provider profile, got ${value === undefined ? 'nothing' : JSON.stringify(value)}; valid: ${PROVIDER_IDS.join(', ')}`)
      provider = value as ProviderId
    } else if (flag === '--cache-ttl') {
      cacheTtl = inline ?? argv[++index]
      if (!cacheTtl) throw new PromptInspectorError('USAGE', '--cache-ttl needs a lifetime name, e.g. --cache-ttl 1h')
    } else if (flag === '--max-tool-bytes') {
      const value = inline ?? argv[++index]
      if (value === undefined || !/^[1-9]\d{0,8}$/.test(value)) throw new PromptInspectorError('USAGE', `--max-tool-bytes expects a whole number of bytes from 1 to 999999999, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`)
      maxToolBytes = Number(value)
    }
    else if (flag === '--settle') {
      const value = inline ?? argv[++index]
      settleMs = parseMs(value)
    } else if (flag === '--pg-url-env') {
      pg.urlEnv = parseName(flag, inline ?? argv[++index], /^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name, e.g. DSH_PG_URL')
    } else if (flag === '--pg-schema') {
      pg.schema = parseName(flag, inline ?? argv[++index], /^[a-z_][a-z0-9_]{0,62}$/, 'lower case letters, digits and "_", e.g. dsh')
    } else {
      const what = OPTIONS.includes(flag) ? `option ${flag} takes no value` : `unknown option ${JSON.stringify(arg)}`
      throw new PromptInspectorError('USAGE', `${what}; valid options: ${VALID_OPTIONS} (see dsh-prompt --help)`)
    }
  }
  if (help) return { command: 'help' }
  const [command, ...rest] = positional
  if (command === undefined) throw new PromptInspectorError('USAGE', `missing command; valid commands: ${COMMANDS.join(', ')} (see dsh-prompt --help)`)
  if (command === 'inspect') {
    if (rest.length !== 1) throw new PromptInspectorError('USAGE', `inspect takes one app file, got ${describeCount(rest)}; usage: dsh-prompt inspect <cordis.yml> [--json]`)
    return { command, file: rest[0], json, settleMs }
  }
  if (command === 'diff') {
    if (rest.length !== 2) throw new PromptInspectorError('USAGE', `diff takes two inputs, got ${describeCount(rest)}; usage: dsh-prompt diff <a> <b> [--json]`)
    return { command, a: rest[0], b: rest[1], json, settleMs, pg }
  }
  if (command === 'view') {
    if (rest.length !== 1) throw new PromptInspectorError('USAGE', `view takes one session, got ${describeCount(rest)}; usage: dsh-prompt view <session.jsonl | SESSION-ID | pg:SESSION-ID> [--out page.html] [--open]`)
    if (cacheTtl !== undefined && provider === undefined) throw new PromptInspectorError('USAGE', '--cache-ttl needs --provider: a lifetime belongs to a provider profile')
    return { command, input: rest[0], out, open, json, pg, ...provider && { provider }, ...cacheTtl !== undefined && { cacheTtl } }
  }
  if (command === 'lint') {
    if (rest.length !== 1) throw new PromptInspectorError('USAGE', `lint takes one app file, got ${describeCount(rest)}; usage: dsh-prompt lint <cordis.yml> [--json]`)
    return { command, file: rest[0], json, settleMs, maxToolBytes }
  }
  if (command === 'sessions') {
    const input = rest[0]
    if (rest.length !== 1 || !input!.startsWith('pg:') || !/^pg:((postgres|postgresql):\/\/.+)?$/.test(input!)) {
      throw new PromptInspectorError('USAGE', `sessions takes one fleet, pg: (the URL from --pg-url-env's variable) or pg:postgres://user@host/db, got ${describeCount(rest)}; `
        + 'usage: dsh-prompt sessions pg: [--json]')
    }
    return { command, url: input!.length > 3 ? input!.slice(3) : undefined, json, pg }
  }
  throw new PromptInspectorError('USAGE', `unknown command ${JSON.stringify(command)}; valid commands: ${COMMANDS.join(', ')} (see dsh-prompt --help)`)
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=')
  return eq < 0 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)]
}

function parseMs(value: string | undefined): number {
  if (value === undefined) throw new PromptInspectorError('USAGE', '--settle needs a value in milliseconds, e.g. --settle 300')
  if (!/^\d+$/.test(value) || Number(value) > 600_000) {
    throw new PromptInspectorError('USAGE', `--settle expects a whole number of milliseconds from 0 to 600000, got ${JSON.stringify(value)}`)
  }
  return Number(value)
}

function parseName(flag: string, value: string | undefined, pattern: RegExp, valid: string): string {
  if (value === undefined || !pattern.test(value)) {
    throw new PromptInspectorError('USAGE', `${flag} expects ${valid}, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`)
  }
  return value
}

function describeCount(args: readonly string[]): string {
  return args.length === 0 ? 'none' : `${args.length} (${args.map((arg) => JSON.stringify(arg)).join(' ')})`
}
