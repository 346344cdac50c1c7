// A registry-wide symbol: a second copy of dsh-core (or of the package that threw) marks its errors with the same key.
const MARK = Symbol.for('dsh.coded-error')

/** What a `CodedError` takes beside its code and message. */
export interface CodedErrorOptions<Details extends object> {
  cause?: unknown
  /** Typed facts about the failure (the server, the status), so no caller parses the message. */
  details?: Details
}

type CodedErrorClass<E> = (abstract new (...args: never[]) => E) & { readonly marker: string }

/**
 * Base of each package's one error class: an `Error` with a `code` callers switch on and typed `details`.
 * Each package subclasses it once with its own code union, its `name` and its `marker` (the package's name):
 * `class SessionError extends CodedError<SessionErrorCode> { static override readonly marker = 'dsh-session' }`.
 * Recognise one with `SessionError.is(error, 'BUSY')`, never by `name`, message text or a bare `code`.
 */
export class CodedError<Code extends string = string, Details extends object = Record<never, never>> extends Error {
  /** The package this class belongs to; each subclass sets its own. Instances carry it under `Symbol.for('dsh.coded-error')`. */
  static readonly marker: string = 'dsh-core'
  readonly details: Readonly<Details>

  constructor(public readonly code: Code, message: string, options: CodedErrorOptions<Details> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.details = Object.freeze({ ...options.details }) as Readonly<Details>
    const marks: string[] = []
    for (let type: unknown = new.target; typeof type === 'function' && type !== Error; type = Object.getPrototypeOf(type)) {
      if (Object.hasOwn(type, 'marker')) marks.push((type as CodedErrorClass<unknown>).marker)
    }
    // not enumerable: JSON, logs and `toEqual` see the same error as before
    Object.defineProperty(this, MARK, { value: Object.freeze(marks) })
  }

  /**
   * True when `error` was thrown as this class (by any copy of its package), and, given `code`, carries that code.
   * On `CodedError` itself: any DSH error. An error of another library with a `code` property is not one.
   */
  static is<E extends CodedError<string, object>, C extends E['code'] = E['code']>(
    this: CodedErrorClass<E>, error: unknown, code?: C,
  ): error is E & { readonly code: C } {
    // an inherited marker would make the class answer for its parent's errors
    if (!Object.hasOwn(this, 'marker')) throw new TypeError(`${this.name} sets no static marker; set it to its package's name`)
    if (typeof error !== 'object' || error === null) return false
    const marks = (error as { [MARK]?: unknown })[MARK]
    if (!Array.isArray(marks) || !marks.includes(this.marker)) return false
    return code === undefined || (error as { code?: unknown }).code === code
  }
}
