import { listNames, quote } from 'dsh-core'
import { SystemPromptError } from './errors.ts'

/** Variable names: lower-case identifiers, so a placeholder never collides with prose like `{{ x }}`. */
export const VARIABLE_NAME = /^[a-z][a-z0-9_]*$/

const hasOwn = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key)

/**
 * Replaces each `{{name}}` in `text` with its value. Strict: an unknown name, a variable without a value
 * and a malformed `{{…}}` group each throw. A `{{` with no later `}}` is literal text. Values are inserted
 * as they are and never scanned again, so a value containing `{{x}}` stays literal.
 */
export function interpolate(text: string, variables: Readonly<Record<string, string | undefined>>, where = 'prompt'): string {
  let out = ''
  let cursor = 0
  while (true) {
    const open = text.indexOf('{{', cursor)
    if (open < 0) break
    const close = text.indexOf('}}', open + 2)
    if (close < 0) break
    const name = text.slice(open + 2, close)
    if (!VARIABLE_NAME.test(name)) {
      throw new SystemPromptError(
        'MALFORMED_PLACEHOLDER',
        `malformed placeholder ${quote(text.slice(open, close + 2))} in ${where}: a placeholder is {{name}} with name matching ${VARIABLE_NAME}`,
      )
    }
    if (!hasOwn(variables, name)) {
      throw new SystemPromptError(
        'UNKNOWN_VARIABLE',
        `unknown prompt variable ${quote(name)} in ${where}; registered variables: ${listNames(Object.keys(variables).sort())}`,
      )
    }
    const value = variables[name]
    if (value === undefined) {
      throw new SystemPromptError('MISSING_VARIABLE', `prompt variable ${quote(name)} in ${where} has no value in this assembly`)
    }
    out += text.slice(cursor, open) + value
    cursor = close + 2
  }
  return out + text.slice(cursor)
}
