import type { Session } from 'dsh-session'
import type { ContextSnapshotSection } from 'dsh-system-prompt/bytes'

/** Sent when runtime context was shown before and none is current any more. */
export const CONTEXT_CLEARED = 'Runtime context: none is current; earlier runtime context no longer applies.'

/**
 * Keeps the runtime-context snapshot out of the cached prefix: it is logged as a `context/snapshot` event (a
 * user-role message after the header) only when it differs from the one the history holds, so an unchanged
 * context costs nothing and a changed one never touches the header bytes.
 */
export class ContextSnapshots {
  /** The snapshot text the model-facing history holds ('' for none); undefined until read from the log. */
  private shown: string | undefined

  constructor(private readonly session: Session) {}

  /** Logs the snapshot of `sections` (joined as `text`) when the history holds another one. */
  update(turn: number, step: number, text: string, sections: readonly ContextSnapshotSection[]): void {
    const shown = this.shown ??= shownIn(this.session)
    const next = text !== '' ? text : shown === '' || shown === CONTEXT_CLEARED ? shown : CONTEXT_CLEARED
    if (next === shown) return
    this.session.append('context/snapshot', { turn, step, text: next, sections: text === '' ? [] : sections.map(({ name, text }) => ({ name, text })) })
    this.shown = next
  }

  /** A compaction may have summarized the snapshot away: read the history again at the next update. */
  forget(): void {
    this.shown = undefined
  }
}

/**
 * The text of the last snapshot still in the model-facing history, '' when none (or a compaction took it).
 * Read back from the end of the log through `session.event`, without copying the log.
 */
function shownIn(session: Session): string {
  let compactedThrough = 0
  for (let seq = session.lastSeq; seq >= 1; seq--) {
    const event = session.event(seq)!
    if (event.type === 'context/compaction') {
      compactedThrough = Math.max(compactedThrough, event.data.throughSeq)
    } else if (event.type === 'context/snapshot') {
      return event.seq <= compactedThrough ? '' : event.data.text
    }
  }
  return ''
}
