import { CodedError } from 'dsh-core'
import type { SessionHolder } from 'dsh-session'

/** Why `ctx.harness` cannot open the agent asked for. */
export type HarnessErrorCode =
  /** `continue` with no stored session. */
  | 'NO_SESSION'
  /** `resume` of an id the session store does not list. */
  | 'UNKNOWN_SESSION'
  /** The session is being written: by another process (a store with one writer per session) or by an agent of this app. */
  | 'BUSY'
  /** `side()` for an agent id that is not open in this app. */
  | 'UNKNOWN_AGENT'
  /** `side()` with a question that has no text. */
  | 'INVALID_QUESTION'

/** What a HarnessError knows beside its message: `sessionId` names the session; `stored` how many the store lists. */
export interface HarnessErrorDetails {
  sessionId?: string
  stored?: number
  /** For `BUSY` on a store shared by a fleet: the live holder (host, pid, since, last write). */
  holder?: SessionHolder & { lastTime?: string }
}

/** The one error class of dsh-harness. */
export class HarnessError extends CodedError<HarnessErrorCode, HarnessErrorDetails> {
  static override readonly marker = 'dsh-harness'
  override name = 'HarnessError'
}

/** A store's or the loop's refusal of a session another writer holds: recognised by marker and code, never by text. */
export function isBusy(error: unknown): boolean {
  return CodedError.is(error, 'BUSY')
}
