import { promises as fs } from 'node:fs'
import { SessionError } from './errors.ts'
import { type EventSink, Session, restoreEvent } from './session.ts'

/**
 * Appends lines to one JSONL file through a single ordered queue: lines queued while a write is in
 * flight go out together in the next write, so writes never interleave and order is append order.
 */
export class JsonlWriter implements EventSink {
  private readonly queue: string[] = []
  private queued = 0
  private persisted = 0
  private draining: Promise<void> | undefined
  private failure: SessionError | undefined

  constructor(readonly path: string, private readonly onFailure: (error: SessionError) => void = () => {}) {}

  write(line: string): void {
    if (this.failure) throw this.failure
    this.queue.push(line)
    this.queued++
    this.draining ??= this.drain()
  }

  async flushed(): Promise<void> {
    const target = this.queued
    while (this.persisted < target && !this.failure) await this.draining
    if (this.failure) throw this.failure
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0)
        await fs.appendFile(this.path, batch.join(''))
        this.persisted += batch.length
      }
    } catch (error) {
      this.failure = new SessionError('WRITE_FAILED', `cannot append to ${this.path}: ${(error as Error).message}; `
        + 'the session refuses further appends', { cause: error })
      this.onFailure(this.failure)
    } finally {
      this.draining = undefined
    }
  }
}

/** Creates an empty log file; fails with EXISTS if one is already there. */
export async function createLogFile(path: string): Promise<void> {
  try {
    await fs.writeFile(path, '', { flag: 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new SessionError('EXISTS', `session log ${path} already exists; use open() or openOrCreate()`)
    }
    throw error
  }
}

export interface LoadHooks {
  warn(message: string): void
  onWriteFailure(error: SessionError): void
}

/**
 * Loads a session from its JSONL log. A torn last line (invalid JSON, as after a crash mid-write) is
 * reported through `warn` and truncated off the file; any other bad line fails naming file and line.
 */
export async function loadSession(id: string, path: string, hooks: LoadHooks): Promise<Session> {
  let text: string
  try {
    text = await fs.readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new SessionError('NOT_FOUND', `session "${id}" has no log at ${path}`)
    }
    throw error
  }
  const terminated = text === '' || text.endsWith('\n')
  const lines = text.split('\n')
  if (terminated) lines.pop()

  const records: unknown[] = []
  let tornAt: number | undefined
  let offset = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    try {
      records.push(JSON.parse(line))
    } catch (error) {
      if (i < lines.length - 1) {
        throw new SessionError('CORRUPT_LINE', `${path}, line ${i + 1}: not valid JSON (${(error as Error).message})`)
      }
      tornAt = offset
    }
    offset += line.length + 1
  }

  const session = new Session(id, { resumed: true, sink: new JsonlWriter(path, hooks.onWriteFailure) })
  records.forEach((record, i) => {
    try {
      session[restoreEvent](record)
    } catch (error) {
      if (!(error instanceof SessionError)) throw error
      throw new SessionError(error.code, `${path}, line ${i + 1}: ${error.message}`, { cause: error })
    }
  })

  if (tornAt !== undefined) {
    const keep = Buffer.byteLength(text.slice(0, tornAt))
    await fs.truncate(path, keep)
    hooks.warn(`${path}, line ${lines.length}: skipped a torn last line (${Buffer.byteLength(text) - keep} bytes of invalid JSON, `
      + 'likely an interrupted write) and truncated it off the file')
  } else if (!terminated) {
    // A complete last record without its newline: finish the line so the next append starts clean.
    await fs.appendFile(path, '\n')
  }
  return session
}
