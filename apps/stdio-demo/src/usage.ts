import { readFileSync } from 'node:fs'
import { HELP } from './commands.ts'
import type { HistoryLimit } from './resume-history.ts'

/** The package version, as `--version` prints it. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/** What `--help` prints: every option, the environment it reads, the exit status and every REPL command. */
export const USAGE = `usage: dsh-stdio-demo [app.yml] [--continue | --resume <id>] [--history <rows|all>]
       dsh-stdio-demo [app.yml] --sessions
       dsh-stdio-demo --help | --version

Runs a DSH agent in the terminal: a REPL when stdin is a terminal, one prompt per line when piped (answers
on stdout, tool activity and errors on stderr).

Arguments and options:
  app.yml        the app file (a YAML list of loader entries); default: the cordis.yml shipped with the app
  --sessions     list the stored sessions of this working folder (id, time of the last event, turns, first
                 prompt), newest first
  --continue     resume the most recent stored session of this working folder
  --resume <id>  resume the stored session <id> (an unknown id is one error line)
  --history <rows|all>
                 with --continue or --resume, in the REPL: how much of the resumed conversation to print
                 before the first prompt, in terminal rows (default: what fits on the terminal), or all
  -h, --help     print this text and exit
  -V, --version  print the version and exit

Environment:
  DSH_LOG_LEVEL           silent | error | warn | info | debug (default info); logs go to stderr
  DSH_STARTUP_TIMEOUT_MS  how long the first turn waits for tool sources still starting (default 15000)
  XDG_STATE_HOME          the state folder (default ~/.local/state): sessions in dsh/sessions/<working folder
                          key>/ unless the app file sets persistenceRoot, REPL history in dsh/stdio-history
  the API-key variables the app file's model entries name (apiKeyEnv)

Exit status: 0 when every turn ended well; 1 when the boot failed, or (piped) when any turn failed, with
a one-line summary on stderr ("2 of 5 turns failed").

Commands (REPL and piped):
${HELP.split('\n').map((line) => `  ${line}`).join('\n')}
`

/** Which session the run serves: a new one, the most recent (`--continue`), or one by id (`--resume`). */
export type SessionChoice = { kind: 'new' } | { kind: 'continue' } | { kind: 'resume'; id: string }

/** What the command line asks for before any boot: help, the version, the session list, or a run. */
export type Invocation =
  | { print: string }
  | { file: string | undefined; list: true }
  | { file: string | undefined; list?: false; session: SessionChoice; history?: HistoryLimit }
  | { error: string }

const OPTIONS = '-h/--help, -V/--version, --sessions, --continue, --resume <id>, --history <rows|all>'
// an argument error is one line: the usage text is what --help prints, not something to scroll past
const SEE_HELP = ' (dsh-stdio-demo --help shows the usage)'

/** Reads argv (without node and the script). */
export function parseInvocation(args: readonly string[]): Invocation {
  if (args.includes('-h') || args.includes('--help')) return { print: USAGE }
  if (args.includes('-V') || args.includes('--version')) return { print: `dsh-stdio-demo ${VERSION}\n` }
  const files: string[] = []
  const chosen: string[] = []
  let session: SessionChoice = { kind: 'new' }
  let list = false
  let history: HistoryLimit | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--sessions') {
      list = true
      chosen.push(arg)
    } else if (arg === '--continue') {
      session = { kind: 'continue' }
      chosen.push(arg)
    } else if (arg === '--resume' || arg.startsWith('--resume=')) {
      const id = arg === '--resume' ? args[++i] : arg.slice('--resume='.length)
      if (!id || id.startsWith('-')) return { error: `--resume needs a session id (--sessions lists them)${SEE_HELP}` }
      session = { kind: 'resume', id }
      chosen.push('--resume')
    } else if (arg === '--history' || arg.startsWith('--history=')) {
      const value = arg === '--history' ? args[++i] : arg.slice('--history='.length)
      const parsed = historyLimit(value)
      if (parsed === undefined) return { error: `--history: expected "all" or a number of terminal rows (1 or more), got ${value === undefined ? 'nothing' : JSON.stringify(value)}${SEE_HELP}` }
      history = parsed
    } else if (arg.startsWith('-')) {
      return { error: `unknown option ${JSON.stringify(arg)}; valid options: ${OPTIONS}${SEE_HELP}` }
    } else {
      files.push(arg)
    }
  }
  if (chosen.length > 1) return { error: `${chosen.join(' and ')} cannot be combined; give one of --sessions, --continue, --resume <id>${SEE_HELP}` }
  if (files.length > 1) return { error: `expected at most one app file, got ${files.length} arguments${SEE_HELP}` }
  if (history !== undefined && (list || session.kind === 'new')) return { error: `--history prints a resumed conversation: give it with --continue or --resume <id>${SEE_HELP}` }
  if (list) return { file: files[0], list: true }
  return history === undefined ? { file: files[0], session } : { file: files[0], session, history }
}

/** `all`, or a whole number of rows 1 or more; undefined for anything else. */
function historyLimit(value: string | undefined): HistoryLimit | undefined {
  if (value === 'all') return 'all'
  return value !== undefined && /^[1-9]\d{0,5}$/.test(value) ? Number(value) : undefined
}
