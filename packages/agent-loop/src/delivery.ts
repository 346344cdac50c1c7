import type { Session } from 'dsh-session'
import type { PermissionAsker } from './permission-gate.ts'
import type { AgentUpdate } from './types.ts'

/**
 * Hands a turn's live updates to the front door (`PromptOptions.onUpdate`), in order, each only once the
 * session events logged before it survive the end of the process (`Session.written()`): an editor never
 * shows a prompt or a tool call that a `kill -9` would take back. While the store has not taken them,
 * updates wait (text deltas included); when it failed, they are held back, except the turn's end, which
 * reports that failure.
 */
export class UpdateDelivery {
  private chain: Promise<void> = Promise.resolve()

  constructor(private readonly session: Session, private readonly deliver: (update: AgentUpdate) => void) {}

  push(update: AgentUpdate): void {
    this.chain = this.chain.then(async () => {
      if (update.type !== 'turn-end' && !await this.stored()) return
      this.deliver(update)
    })
  }

  /** Resolves once every update pushed so far was delivered or held back; never rejects. */
  delivered(): Promise<void> {
    return this.chain
  }

  /** `ask`, called once the updates so far are delivered and every logged event is stored (the asked call among them). */
  guard(ask: PermissionAsker): PermissionAsker {
    return async (request) => {
      await this.delivered()
      await this.session.written()
      return ask(request)
    }
  }

  private stored(): Promise<boolean> {
    return this.session.written().then(() => true, () => false)
  }
}
