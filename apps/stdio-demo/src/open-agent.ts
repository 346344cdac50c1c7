import type { Agent } from 'dsh-agent-loop'
import { BootError, displayPath, oneLine, type BootedApp } from 'dsh-app-boot'
import { Config, type StdioDemo } from './plugin.ts'

/**
 * The front door's agent. Its session is the first thing that touches `persistenceRoot`, so a root that
 * is not a usable folder fails here: reported like any other boot failure, one line naming the file and
 * the entry, after the app is disposed.
 */
export async function openAgent(demo: StdioDemo, app: BootedApp, file: string): Promise<Agent> {
  try {
    return await demo.createAgent()
  } catch (error) {
    await app.dispose()
    const entry = app.entries.find((item) => !item.disabled && item.fiber?.runtime?.Config === Config)
    const where = entry ? `entry "${entry.id}" (dsh-stdio-demo)` : 'dsh-stdio-demo'
    const message = oneLine(error instanceof Error ? error.message : String(error))
    throw new BootError('PLUGIN_FAILED', `${displayPath(file)}: ${where}: cannot open a session (persistenceRoot "${demo.config.persistenceRoot}"): ${message}`)
  }
}
