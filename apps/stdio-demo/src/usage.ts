import { readFileSync } from 'node:fs'
import { HELP } from './commands.ts'

/** The package version, as `--version` prints it. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/** What `--help` prints: every option, the environment it reads, the exit status and every REPL command. */
export const USAGE = `usage: dsh-stdio-demo [app.yml]
       dsh-stdio-demo --help | --version

Runs a DSH agent in the terminal: a REPL when stdin is a terminal, one prompt per line when piped (answers
on stdout, tool activity and errors on stderr).

Arguments and options:
  app.yml        the app file (a YAML list of loader entries); default: the cordis.yml shipped with the app
  -h, --help     print this text and exit
  -V, --version  print the version and exit

Environment:
  DSH_LOG_LEVEL           silent | error | warn | info | debug (default info); logs go to stderr
  DSH_STARTUP_TIMEOUT_MS  how long the first turn waits for tool sources still starting (default 15000)
  the API-key variables the app file's model entries name (apiKeyEnv)

Exit status: 0 when every turn ended well; 1 when the boot failed, or (piped) when any turn failed, with
a one-line summary on stderr ("2 of 5 turns failed").

Commands (REPL and piped):
${HELP.split('\n').map((line) => `  ${line}`).join('\n')}
`

/** What the command line asks for before any boot: help, the version, or the app file to run. */
export type Invocation = { print: string } | { file: string | undefined } | { error: string }

/** Reads argv (without node and the script). */
export function parseInvocation(args: readonly string[]): Invocation {
  if (args.includes('-h') || args.includes('--help')) return { print: USAGE }
  if (args.includes('-V') || args.includes('--version')) return { print: `dsh-stdio-demo ${VERSION}\n` }
  const unknown = args.find((arg) => arg.startsWith('-'))
  if (unknown !== undefined) return { error: `unknown option ${JSON.stringify(unknown)}; valid options: -h/--help, -V/--version\n${USAGE}` }
  if (args.length > 1) return { error: `expected at most one app file, got ${args.length} arguments\n${USAGE}` }
  return { file: args[0] }
}
