import { CodedError } from 'dsh-core'

/** Every way dsh-cache-break-detector can refuse input; callers switch on `code`. */
export type CacheBreakDetectorErrorCode = 'INVALID_THRESHOLD' | 'INVALID_RULES'

/** The one error class of dsh-cache-break-detector. */
export class CacheBreakDetectorError extends CodedError<CacheBreakDetectorErrorCode> {
  static override readonly marker = 'dsh-cache-break-detector'
  override name = 'CacheBreakDetectorError'
}
