import { CodedError } from 'dsh-core'

/** Every way dsh-prompt-cache can refuse input; callers switch on `code`. */
export type PromptCacheErrorCode = 'INVALID_THRESHOLD' | 'INVALID_RULES'

/** The one error class of dsh-prompt-cache. */
export class PromptCacheError extends CodedError<PromptCacheErrorCode> {
  override name = 'PromptCacheError'
}
