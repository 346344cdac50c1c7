import { fileURLToPath } from 'node:url'
import { AppBootError, runMain, startApp } from 'dsh-app-boot'
import { openAgent } from './open-agent.ts'
import { historyFile } from './history.ts'
import { flushOut, watchClosed } from './output.ts'
import { failureSummary, servePiped, type Streams } from './piped.ts'
import { formatSessions } from './sessions.ts'
import { showStartup } from './startup.ts'
import { BetweenTurns } from './between-turns.ts'
import { leavingLine, resumeHistory } from './resume-history.ts'
import { parseInvocation } from './usage.ts'
import type {} from './service.ts'

const DEFAULT_FILE = fileURLToPath(new URL('../cordis.yml', import.meta.url))

runMain(async (stopWith) => {
  const invocation = parseInvocation(process.argv.slice(2))
  if ('print' in invocation) return void process.stdout.write(invocation.print)
  if ('error' in invocation) throw new AppBootError('INVALID_OPTION', invocation.error)
  const file = invocation.file ?? DEFAULT_FILE

  const interactive = process.stdin.isTTY === true && !invocation.list
  // The terminal front end (line editing, paste, the permission prompt) is loaded only on a terminal, while the
  // app starts; piped input and --sessions never need it.
  const repl = interactive ? import('./repl.ts') : undefined
  // on a terminal, log lines and MCP server notices go between turns, never over the prompt
  const between = interactive ? new BetweenTurns((text) => process.stderr.write(text)) : undefined
  // Ctrl-C while it starts: the app stops (runMain), and nothing more is printed but the line end
  let stopping = false
  const onInterrupt = () => {
    stopping = true
    process.stdout.write('\n')
  }
  if (interactive) process.once('SIGINT', onInterrupt)
  // the first turn is served only once the app is ready (every entry started, or the startup timeout passed)
  const app = await startApp({ file, resolve: (name) => import.meta.resolve(name), frontDoor: { service: 'stdioDemo', plugin: 'dsh-stdio-demo' }, ...between && { logWrite: (line: string) => between.say(line) } })
  stopWith(app) // a signal while it starts stops it at once
  const demo = await app.whenProvided('stdioDemo')
  const shown = new Set<unknown>()
  const notice = (status: { message: string }) => {
    if (stopping || shown.has(status)) return
    shown.add(status)
    between?.say(`(${status.message})`)
  }
  if (between && demo) demo.harness.onSourceStatus(notice)
  if (interactive && demo) await showStartup(process.stdout, demo.config.welcome, app, () => stopping)
  const booted = await app.ready
  if (!demo) {
    await app.dispose()
    throw new AppBootError('MISSING_SERVICE', `${file}: no enabled entry runs dsh-stdio-demo; add one, e.g. "- { id: app, name: dsh-stdio-demo }"`)
  }
  if (invocation.list) {
    const where = demo.harness.sessionsLocation
    const listed = await demo.harness.sessionSummaries().finally(() => app.dispose())
    process.stdout.write(formatSessions(listed, where))
    await flushOut(process.stdout)
    return
  }
  const agent = await openAgent(demo, booted, file, invocation.session)
  if (stopping) return app
  process.off('SIGINT', onInterrupt)
  // an outage that began before the listener was in place
  if (between) for (const status of demo.harness.downSources()) notice(status)
  // --resume / --continue in the REPL: which session, and its conversation, paged to the terminal (piped output stays answers only)
  if (interactive && invocation.session.kind !== 'new') process.stdout.write(resumeHistory(agent.session.id, agent.session.events(), invocation.history, process.stdout))
  const streams: Streams = { input: process.stdin, output: process.stdout, errors: process.stderr }
  // `… | head -c 100`: the reader left; stop reading, end the running turn in the log, leave quietly
  const outputClosed = new AbortController()
  watchClosed(process.stdout, () => outputClosed.abort(), (error) => outputClosed.abort(error))
  const served = repl
    ? repl.then(({ serveRepl }) => serveRepl(streams, demo, agent, { historyPath: historyFile(demo.harness), between })).then(() => undefined)
    : servePiped(streams, demo, agent, outputClosed.signal).then(failureSummary)
  served
    .then(async (failed) => {
      // leaving the REPL: the session and how to come back to it
      const leaving = repl ? leavingLine(agent.session.id, agent.session.events(), invocation.file) : ''
      await app.dispose()
      process.stdout.write(leaving)
      await flushOut(process.stdout)
      if (failed) process.stderr.write(`${failed}\n`)
      process.exit(failed ? 1 : 0)
    })
    .catch((error) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
      process.exit(1)
    })
  // a signal mid-turn: disposing the agent loop ends the running turn in its log before the store closes
  return app
})
