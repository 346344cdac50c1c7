import type { Context } from 'cordis'
import type { Session } from 'dsh-session'
import { Compactor } from './compaction.ts'
import { HeaderLog } from './header.ts'
import { PermissionGate } from './permission-gate.ts'
import { ContextSnapshots } from './runtime-context.ts'
import type { AgentSettings } from './types.ts'

/**
 * What an agent keeps over its session: the header log, the compactor, the runtime-context snapshots and
 * the permission gate. Built again when the agent is bound to a session reopened after a store failure.
 */
export class SessionParts {
  readonly headers: HeaderLog
  readonly compactor: Compactor
  readonly snapshots: ContextSnapshots
  readonly permissions: PermissionGate

  constructor(readonly session: Session, settings: AgentSettings, tools: Context['tools'], agentId: string, warn: (text: string) => void) {
    this.snapshots = new ContextSnapshots(session)
    this.permissions = new PermissionGate(settings.permissions, session, (name) => tools.get(name, { agentId })?.annotations)
    this.headers = new HeaderLog(session)
    this.compactor = new Compactor(session, {
      compactAt: settings.compactAt,
      timeoutMs: settings.compactionTimeoutMs,
      headers: this.headers,
      compacted: () => this.snapshots.forget(),
      warn,
    })
  }
}
