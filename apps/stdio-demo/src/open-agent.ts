import type { Agent } from 'dsh-agent-loop'
import { messageOf, oneLine } from 'dsh-core'
import { AppBootError, displayPath, type BootedApp } from 'dsh-app-boot'
import { Config } from './config.ts'
import type { StdioDemo } from './service.ts'
import type { SessionChoice } from './usage.ts'

/** The session id the choice names, or undefined for a new session; an unknown id is one clear line. */
async function chosenSession(demo: StdioDemo, choice: SessionChoice): Promise<string | undefined> {
  if (choice.kind === 'new') return undefined
  const stored = await demo.storedSessions()
  if (choice.kind === 'continue') {
    if (!stored.length) throw new AppBootError('INVALID_OPTION', '--continue: there is no stored session yet; run without it to start one')
    // a session another process is writing, or a broken one, cannot be continued here; one that can, if any
    return (stored.find((summary) => !summary.busy && summary.broken === undefined) ?? stored[0]!).id
  }
  if (!stored.some((summary) => summary.id === choice.id)) {
    throw new AppBootError('INVALID_OPTION', `--resume: no stored session ${JSON.stringify(choice.id)}; --sessions lists the ${stored.length} there are`)
  }
  return choice.id
}

/**
 * The front door's agent, on a new session or the chosen stored one. Its session is the first thing that
 * touches `persistenceRoot`, so a root that is not a usable folder fails here (as does a PostgreSQL session
 * another process is writing): reported like any other boot failure, one line naming the file, the entry and
 * where the sessions are, after the app is disposed.
 */
export async function openAgent(demo: StdioDemo, app: BootedApp, file: string, choice: SessionChoice = { kind: 'new' }): Promise<Agent> {
  // named before the app is disposed: an external store (PostgreSQL) says where it is, a JSONL one its folder setting
  const place = demo.config.sessionStore === 'external' ? demo.sessionsLocation : `persistenceRoot ${JSON.stringify(demo.sessionsLocation)}`
  try {
    return await demo.createAgent(await chosenSession(demo, choice))
  } catch (error) {
    await app.dispose()
    if (AppBootError.is(error)) throw error
    const entry = app.entries.find((item) => !item.disabled && item.fiber?.runtime?.Config === Config)
    const where = entry ? `entry "${entry.id}" (dsh-stdio-demo)` : 'dsh-stdio-demo'
    const message = oneLine(messageOf(error))
    throw new AppBootError('PLUGIN_FAILED', `${displayPath(file)}: ${where}: cannot open a session (${place}): ${message}`)
  }
}
