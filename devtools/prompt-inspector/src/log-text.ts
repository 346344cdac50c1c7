import { readFile } from 'node:fs/promises'
import { invalidUtf8Offset, isUtf8CutAtEnd, lineAt } from 'dsh-core'
import { PromptInspectorError } from './errors.ts'

/**
 * A session log's text. Bytes that are not UTF-8 fail naming the line and byte offset (never U+FFFD in an
 * event); only a character cut off at the very end passes, as a crash mid-write leaves it (the torn last line
 * is skipped by the caller). `what` names the log when it cannot be read.
 */
export async function readLogText(path: string, what = path): Promise<string> {
  let bytes: Buffer
  try {
    bytes = await readFile(path)
  } catch (error) {
    throw new PromptInspectorError('INPUT', `${what}: cannot read session log: ${(error as Error).message}`, { cause: error })
  }
  const offset = invalidUtf8Offset(bytes)
  if (offset !== undefined && !isUtf8CutAtEnd(bytes)) {
    throw new PromptInspectorError('INPUT', `${path}:${lineAt(bytes, offset)}: not valid UTF-8 at byte offset ${offset}`)
  }
  return bytes.toString('utf8')
}

/**
 * Hands `visit` the JSON value of each line of a log, in order, with its 1-based line number. Blank lines are
 * skipped, and so is a last line that does not parse (torn by a crash mid-write); any other line that is not
 * JSON fails naming it, once the lines before it were visited.
 */
export function eachJsonLine(text: string, path: string, visit: (value: unknown, line: number) => void): void {
  const lines = text.split('\n')
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (error) {
      if (index === lines.length - 1) return
      throw new PromptInspectorError('INPUT', `${path}:${index + 1}: not a JSON event: ${(error as Error).message}`)
    }
    visit(value, index + 1)
  })
}
