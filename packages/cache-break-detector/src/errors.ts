import { CodedError } from 'dsh-core'

/** Every way dsh-cache-break-detector can refuse input; callers switch on `code`. */
export type PromptCacheErrorCode = 'INVALID_THRESHOLD' | 'INVALID_RULES'

/** The one error class of dsh-cache-break-detector. */
export class PromptCacheError extends CodedError<PromptCacheErrorCode> {
  override name = 'PromptCacheError'
}
