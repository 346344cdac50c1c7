import { readFile } from 'node:fs/promises'
import { invalidUtf8Offset, isUtf8CutAtEnd } from 'dsh-core'
import { PromptCliError } from './errors.ts'

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
    throw new PromptCliError('INPUT', `${what}: cannot read session log: ${(error as Error).message}`, { cause: error })
  }
  const offset = invalidUtf8Offset(bytes)
  if (offset !== undefined && !isUtf8CutAtEnd(bytes)) {
    let line = 1
    for (let index = bytes.indexOf(10); index >= 0 && index < offset; index = bytes.indexOf(10, index + 1)) line++
    throw new PromptCliError('INPUT', `${path}:${line}: not valid UTF-8 at byte offset ${offset}`)
  }
  return bytes.toString('utf8')
}
