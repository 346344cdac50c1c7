import { CodedError } from 'dsh-core'

/** Every failure code `dsh-llm-scripted` raises. */
export type LlmScriptedErrorCode = 'INVALID_CONFIG' | 'INVALID_SCRIPT' | 'SCRIPT_EXHAUSTED' | 'SCRIPTED_FAILURE' | 'CANCELLED'

/** The one error class of `dsh-llm-scripted`. */
export class LlmScriptedError extends CodedError<LlmScriptedErrorCode> {
  static override readonly marker = 'dsh-llm-scripted'
  override name = 'LlmScriptedError'
}
