import { CodedError } from 'dsh-core'

/** Every failure code `dsh-llm` raises. */
export type LlmErrorCode =
  | 'UNKNOWN_MODEL'
  | 'DUPLICATE_MODEL'
  | 'INVALID_ADAPTER'
  | 'INVALID_TOOL_UPDATE'
  | 'ADAPTER_ERROR'
  | 'PROTOCOL_ERROR'
  | 'CANCELLED'

/** The one error class of `dsh-llm`; `code` tells callers and tests the failures apart. */
export class LlmError extends CodedError<LlmErrorCode> {
  static override readonly marker = 'dsh-llm'
  override name = 'LlmError'
  /** Provider of the adapter involved, when one is. */
  provider?: string
  /** Model id of the request involved, when one is. */
  model?: string

  constructor(
    code: LlmErrorCode,
    message: string,
    details: { provider?: string; model?: string; cause?: unknown } = {},
  ) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause })
    if (details.provider !== undefined) this.provider = details.provider
    if (details.model !== undefined) this.model = details.model
  }
}
