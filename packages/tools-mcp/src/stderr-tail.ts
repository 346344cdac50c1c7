/** How much of a server's stderr is kept: enough to hold an error line above a long stack. */
export const STDERR_KEPT = 16_384

// `Error: …`, `TypeError: …`, `ModuleNotFoundError: …`, `java.io.IOException: …`, `error: …`, `fatal: …`, `panic: …`
const ERROR_LINE = /^(?:Uncaught\s+)?(?:[\w.$]*(?:Error|Exception)|error|fatal|panic)(?:\[[\w-]+\])?:\s*\S/i
// what a runtime prints around an error: stack frames, object dumps, carets, the runtime's own banner
const NOISE = [
  /^at\s/, // a JavaScript stack frame
  /^File ".*", line \d+/, // a Python stack frame
  /^Traceback \(most recent call last\):$/,
  /^[\^~\s]+$/, // the caret under a source line
  /^[{}[\]()]+,?$/,
  /^[\w$]+: .*,?$/, // a field of an object dump (`code: 'MODULE_NOT_FOUND',`)
  /^Node\.js v\d/,
  /^node:internal\//,
  /^throw \w+;$/,
]

/**
 * The line of a server's stderr that says why it failed, for a person: the last line that reads as an error
 * (`Error: Cannot find module '/x.js'`), else the last two lines that are not stack frames, object dumps or a
 * runtime banner, joined with ` | `; '' when there is nothing.
 */
export function meaningfulTail(stderr: string): string {
  const lines = stderr.split(/\r?\n/).map((line) => line.trim()).filter(Boolean)
  const error = lines.findLast((line) => ERROR_LINE.test(line))
  if (error !== undefined) return error
  return lines.filter((line) => !NOISE.some((noise) => noise.test(line))).slice(-2).join(' | ')
}
