import { CodedError } from 'dsh-core'

/** Every way the inspector can refuse to answer; `main` turns each into one stderr line and exit 1. */
export type PromptCliErrorCode =
  | 'USAGE'
  | 'INPUT'
  | 'BOOT'
  | 'MISCONFIGURED'

/** The one error class of dsh-prompt-inspector. */
export class PromptCliError extends CodedError<PromptCliErrorCode> {
  override name = 'PromptCliError'
}
