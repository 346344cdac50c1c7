import { CodedError } from 'dsh-core'

/** Why `ctx.harness` cannot open the agent asked for. */
export type HarnessErrorCode =
  /** `continue` with no stored session. */
  | 'NO_SESSION'
  /** `resume` of an id the session store does not list. */
  | 'UNKNOWN_SESSION'
  /** The session is being written: by another process (a store with one writer per session) or by an agent of this app. */
  | 'BUSY'

/** The one error class of dsh-harness. `sessionId` names the session; `stored` how many the store lists. */
export class HarnessError extends CodedError<HarnessErrorCode> {
  override name = 'HarnessError'
  constructor(code: HarnessErrorCode, message: string, public readonly details: { sessionId?: string; stored?: number } = {}, options?: { cause?: unknown }) {
    super(code, message, options)
  }
}

/** A store's or the loop's refusal of a session another writer holds: recognised by class and code, never by text. */
export function isBusy(error: unknown): boolean {
  return error instanceof CodedError && error.code === 'BUSY'
}
