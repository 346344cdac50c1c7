import { CodedError } from 'dsh-core'

/** Every way the inspector can refuse to answer; `main` turns each into one stderr line and exit 1. */
export type PromptInspectorErrorCode =
  | 'USAGE'
  | 'INPUT'
  | 'BOOT'
  | 'MISCONFIGURED'

/** The one error class of dsh-prompt-inspector. */
export class PromptInspectorError extends CodedError<PromptInspectorErrorCode> {
  static override readonly marker = 'dsh-prompt-inspector'
  override name = 'PromptInspectorError'
}
