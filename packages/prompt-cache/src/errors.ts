/** Every way dsh-prompt-cache can refuse input; callers switch on `code`. */
export type PromptCacheErrorCode = 'INVALID_THRESHOLD'

/** The one error class of dsh-prompt-cache. */
export class PromptCacheError extends Error {
  override name = 'PromptCacheError'
  constructor(public readonly code: PromptCacheErrorCode, message: string) {
    super(message)
  }
}

/** Renders a value for an error message: strings quoted, so `"0.5"` and `0.5` read differently. */
export function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}
