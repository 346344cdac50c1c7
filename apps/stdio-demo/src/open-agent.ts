import { messageOf, oneLine } from 'dsh-core'
import { AppBootError, displayPath, entryRunning, type BootedApp } from 'dsh-app-boot'
import { HarnessError } from 'dsh-harness'
import type { Agent } from 'dsh-harness'
import StdioDemoPlugin from './plugin.ts'
import type { StdioDemo } from './service.ts'
import type { SessionChoice } from './usage.ts'

/** The command-line words for the harness's refusals of `--continue` and `--resume`; undefined for any other failure. */
function optionError(error: unknown, choice: SessionChoice): AppBootError | undefined {
  if (!HarnessError.is(error)) return undefined
  if (error.code === 'NO_SESSION') return new AppBootError('INVALID_OPTION', '--continue: there is no stored session yet; run without it to start one')
  if (error.code === 'UNKNOWN_SESSION' && choice.kind === 'resume') {
    return new AppBootError('INVALID_OPTION', `--resume: no stored session ${JSON.stringify(choice.id)}; --sessions lists the ${error.details.stored} there are`)
  }
  return undefined
}

/**
 * The front door's agent, on a new session or the chosen stored one (`ctx.harness.openAgent`). Its session is the
 * first thing that touches `persistenceRoot`, so a root that is not a usable folder fails here (as does a PostgreSQL
 * session another process is writing): reported like any other boot failure, one line naming the file, the entry
 * and where the sessions are, after the app is disposed.
 */
export async function openAgent(demo: StdioDemo, app: BootedApp, file: string, choice: SessionChoice = { kind: 'new' }): Promise<Agent> {
  const { harness } = demo
  // named before the app is disposed: an external store (PostgreSQL) says where it is, a JSONL one its folder setting
  const place = demo.config.sessionStore === 'external' ? harness.sessionsLocation : `persistenceRoot ${JSON.stringify(harness.sessionsLocation)}`
  try {
    return await harness.openAgent(choice)
  } catch (error) {
    await app.dispose()
    const refused = optionError(error, choice)
    if (refused) throw refused
    const entry = entryRunning(app.entries, StdioDemoPlugin)
    const where = entry ? `entry "${entry.id}" (dsh-stdio-demo)` : 'dsh-stdio-demo'
    const message = oneLine(messageOf(error))
    throw new AppBootError('PLUGIN_FAILED', `${displayPath(file)}: ${where}: cannot open a session (${place}): ${message}`)
  }
}
