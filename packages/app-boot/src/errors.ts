import { CodedError } from 'dsh-core'

/** Every way booting an app file can fail; tests and callers switch on `code`. */
export type AppBootErrorCode =
  | 'APP_FILE_UNREADABLE'
  | 'INVALID_ENCODING'
  | 'YAML_SYNTAX'
  | 'FORBIDDEN_KEY'
  | 'NOT_A_LIST'
  | 'INVALID_ENTRY'
  | 'DUPLICATE_ID'
  | 'UNKNOWN_PLUGIN'
  | 'INVALID_CONFIG'
  | 'PLUGIN_FAILED'
  | 'MISSING_SERVICE'
  | 'INVALID_OPTION'

/** One entry that did not come up, as found after `loader.await()`. */
export interface BootFailure {
  code: AppBootErrorCode
  /** The entry id from the app file. */
  entry: string
  /** One line: the entry id, its plugin name and what went wrong. */
  message: string
  /** The underlying error, when there is one (kept out of the message so it stays one line). */
  cause?: unknown
}

/** The one error class of dsh-app-boot. The message names the app file, the entry and the bad value. */
export class AppBootError extends CodedError<AppBootErrorCode> {
  static override readonly marker = 'dsh-app-boot'
  override name = 'AppBootError'
  constructor(
    code: AppBootErrorCode,
    message: string,
    /** Every failure found, in app-file order; empty for errors found while reading the file. */
    public readonly failures: readonly BootFailure[] = [],
  ) {
    super(code, message)
  }
}

/** Shows a value of an app file or option in an error message: short JSON plus its kind in YAML words (`[1] (a list)`); dsh-core's `describeValue` names the kind alone. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value === null) return 'null'
  const kind = Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a mapping' : `a ${typeof value}`
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  if (text.length > 80) text = `${text.slice(0, 77)}...`
  return `${text} (${kind})`
}
