import { PromptCliError } from './errors.ts'

/** Quiet time after the last tool or prompt change before an app counts as settled, in ms. */
export const DEFAULT_SETTLE_MS = 200

export type Command =
  | { command: 'help' }
  | { command: 'inspect'; file: string; json: boolean; settleMs: number }
  | { command: 'diff'; a: string; b: string; json: boolean; settleMs: number; pg: PgInputOptions }

/** Where `pg:` inputs are read: the variable holding the URL, and the schema. */
export interface PgInputOptions {
  urlEnv: string
  schema: string
}

export const DEFAULT_PG_URL_ENV = 'DSH_PG_URL'
export const DEFAULT_PG_SCHEMA = 'dsh'

export const USAGE = `Usage:
  dsh-prompt inspect <cordis.yml> [--json] [--settle <ms>]
  dsh-prompt diff <a> <b> [--json] [--settle <ms>] [--pg-url-env <NAME>] [--pg-schema <name>]
  dsh-prompt --help

inspect  Boot an app file without serving it and show the request prefix the agent loop would send:
         the system prompt section by section, the canonical tool list with each tool's owner and the
         reason for its position, and sha256 fingerprints of the header and its parts.
diff     Compare two request prefixes and name the first byte where they diverge. <a> and <b> are app
         files (.yml/.yaml, inspected as above) or session logs (.jsonl: the last request/header, or
         file.jsonl#SEQ for the header with that seq) or sessions in PostgreSQL (pg:SESSION-ID, or
         pg:SESSION-ID#SEQ). The prefix is JSON.stringify(tools) + "\\n" + system.

Options:
  --json         Print one JSON object on stdout instead of text.
  --settle <ms>  Quiet time to wait after the last tools/change before assembling (default ${DEFAULT_SETTLE_MS});
                 delayed dsh-tools-static registrations are always awaited.
  --pg-url-env <NAME>  Variable holding the postgres:// URL for pg: inputs (default ${DEFAULT_PG_URL_ENV}).
  --pg-schema <name>   Schema of the sessions for pg: inputs (default ${DEFAULT_PG_SCHEMA}).
  -h, --help     Print this text.

Exit status: 0 done (diff: identical); diff: 1 the prefixes differ, 2 trouble (like diff(1)); inspect: 1 trouble.`

const COMMANDS = ['inspect', 'diff']
const OPTIONS = ['--json', '--settle', '--pg-url-env', '--pg-schema', '--help', '-h']

/** Parses argv (without node and the script); throws a one-line `USAGE` error on anything unexpected. */
export function parseArgs(argv: readonly string[]): Command {
  const positional: string[] = []
  let json = false
  let settleMs = DEFAULT_SETTLE_MS
  let help = false
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
    else if (flag === '--settle') {
      const value = inline ?? argv[++index]
      settleMs = parseMs(value)
    } else if (flag === '--pg-url-env') {
      pg.urlEnv = parseName(flag, inline ?? argv[++index], /^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name, e.g. DSH_PG_URL')
    } else if (flag === '--pg-schema') {
      pg.schema = parseName(flag, inline ?? argv[++index], /^[a-z_][a-z0-9_]{0,62}$/, 'lower case letters, digits and "_", e.g. dsh')
    } else {
      const what = OPTIONS.includes(flag) ? `option ${flag} takes no value` : `unknown option ${JSON.stringify(arg)}`
      throw new PromptCliError('USAGE', `${what}; valid options: --json, --settle <ms>, --pg-url-env <NAME>, --pg-schema <name>, --help (see dsh-prompt --help)`)
    }
  }
  if (help) return { command: 'help' }
  const [command, ...rest] = positional
  if (command === undefined) throw new PromptCliError('USAGE', `missing command; valid commands: ${COMMANDS.join(', ')} (see dsh-prompt --help)`)
  if (command === 'inspect') {
    if (rest.length !== 1) throw new PromptCliError('USAGE', `inspect takes one app file, got ${describeCount(rest)}; usage: dsh-prompt inspect <cordis.yml> [--json]`)
    return { command, file: rest[0], json, settleMs }
  }
  if (command === 'diff') {
    if (rest.length !== 2) throw new PromptCliError('USAGE', `diff takes two inputs, got ${describeCount(rest)}; usage: dsh-prompt diff <a> <b> [--json]`)
    return { command, a: rest[0], b: rest[1], json, settleMs, pg }
  }
  throw new PromptCliError('USAGE', `unknown command ${JSON.stringify(command)}; valid commands: ${COMMANDS.join(', ')} (see dsh-prompt --help)`)
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=')
  return eq < 0 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)]
}

function parseMs(value: string | undefined): number {
  if (value === undefined) throw new PromptCliError('USAGE', '--settle needs a value in milliseconds, e.g. --settle 300')
  if (!/^\d+$/.test(value) || Number(value) > 600_000) {
    throw new PromptCliError('USAGE', `--settle expects a whole number of milliseconds from 0 to 600000, got ${JSON.stringify(value)}`)
  }
  return Number(value)
}

function parseName(flag: string, value: string | undefined, pattern: RegExp, valid: string): string {
  if (value === undefined || !pattern.test(value)) {
    throw new PromptCliError('USAGE', `${flag} expects ${valid}, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`)
  }
  return value
}

function describeCount(args: readonly string[]): string {
  return args.length === 0 ? 'none' : `${args.length} (${args.map((arg) => JSON.stringify(arg)).join(' ')})`
}
