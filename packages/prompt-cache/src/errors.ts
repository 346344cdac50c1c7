/** Every way dsh-prompt-cache can refuse input; callers switch on `code`. */
export type PromptCacheErrorCode = 'INVALID_THRESHOLD'

/** The one error class of dsh-prompt-cache. */
export class PromptCacheError extends Error {
  override name = 'PromptCacheError'
  constructor(public readonly code: PromptCacheErrorCode, message: string) {
    super(message)
  }
}
