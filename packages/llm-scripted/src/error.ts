import { CodedError } from 'dsh-core'

/** Every failure code `dsh-llm-scripted` raises. */
export type ScriptedErrorCode = 'INVALID_CONFIG' | 'INVALID_SCRIPT' | 'SCRIPT_EXHAUSTED' | 'SCRIPTED_FAILURE' | 'CANCELLED'

/** The one error class of `dsh-llm-scripted`. */
export class ScriptedError extends CodedError<ScriptedErrorCode> {
  override name = 'ScriptedError'
}
