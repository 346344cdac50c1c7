import { messageOf } from 'dsh-core'
import type { UpdateDelivery } from './delivery.ts'
import type { Turn } from './turn.ts'
import type { AgentUpdate, PromptOptions } from './types.ts'

/**
 * Where an agent's live updates go: its `agent/update` listeners (in this process) and the front door's
 * `onUpdate`. An observer that throws is logged and the turn goes on, so the log stays balanced.
 */
export class UpdateObservers {
  constructor(private readonly broadcast: (update: AgentUpdate) => void, private readonly warn: (text: string) => void) {}

  /** The notifier of a turn that logged nothing (refused): `onUpdate`, then `agent/update`. */
  direct(onUpdate: PromptOptions['onUpdate']): Turn['notify'] {
    return (update) => {
      this.observe('onUpdate', update, onUpdate)
      this.observe('agent/update', update, this.broadcast)
    }
  }

  /**
   * The notifier of a running turn: `agent/update` listeners hear each update at once; the front door
   * (`onUpdate`, its client) only once the events before it are stored (see UpdateDelivery).
   */
  delivering(delivery: UpdateDelivery): Turn['notify'] {
    return (update) => {
      delivery.push(update)
      this.observe('agent/update', update, this.broadcast)
    }
  }

  /** Calls `observer` with `update`, logging (not throwing) what it throws; `who` names it in that line. */
  observe(who: string, update: AgentUpdate, observer: ((update: AgentUpdate) => void) | undefined): void {
    try {
      observer?.(update)
    } catch (error) {
      this.warn(`an agent update observer (${who}) threw on ${update.type}: ${messageOf(error)}`)
    }
  }
}
