/**
 * Base of each package's one error class: an `Error` with a `code` callers switch on. Each package
 * subclasses it once with its own code union and `name` (`class SessionError extends CodedError<…>`).
 */
export class CodedError<Code extends string> extends Error {
  constructor(public readonly code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}
