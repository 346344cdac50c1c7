import nodeFs, { promises as fs } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Durability } from './durability.ts'
import { type LogLine, type ReadLinesOptions, readLineBatches } from './line-reader.ts'
import { FOLDER_MODE, createLog, makeFolder, openLog } from './log-file.ts'
import { SessionError } from './errors.ts'
import { Session, restoreEvent } from './session.ts'
import { SessionLock } from './session-lock.ts'
import { WriteQueue } from './write-queue.ts'

export interface JsonlWriterOptions {
  sessionId: string
  /** The session's lock file (see `SessionLock`), held from `lock()` (or the first write of a new log) to `close()`. */
  lockPath: string
  onFailure?: (error: SessionError) => void
  durability?: Durability
  /** A new session: the writer creates its folder and file at the first write, and only if no file is there yet. */
  fresh?: boolean
}

/** What the loader found wrong at the end of a log, mended at the first write (never by a reader). */
type TailRepair = { kind: 'cut'; size: number; offset: number } | { kind: 'newline'; size: number }

/**
 * Appends lines to one JSONL file through the ordered write queue and one open file: one write per batch
 * (the lines appended in one tick, or while an fsync was in flight). `durability` decides when the lines
 * are also fsynced (see `Durability`). The writer holds the session's lock while the session is open.
 */
export class JsonlWriter extends WriteQueue {
  readonly path: string
  readonly durability: Durability
  private synced = 0
  private syncing: Promise<void> | undefined
  private file: Promise<FileHandle> | undefined
  private held: SessionLock | undefined
  private repair: TailRepair | undefined
  private fresh: boolean

  constructor(path: string, private readonly options: JsonlWriterOptions) {
    super()
    this.path = path
    this.durability = options.durability ?? 'turn'
    this.fresh = options.fresh ?? false
  }

  /** Takes the session's lock (once); fails with BUSY when another process or store holds it. */
  async lock(): Promise<void> {
    this.held ??= await SessionLock.acquire(this.options.lockPath, this.options.sessionId)
  }

  /** Mends the log's tail at the first write: cut a torn last line at `offset`, or end the last line. */
  repairTail(repair: TailRepair): void {
    this.repair = repair
  }

  /** Resolves once every line written so far is written, and fsynced unless durability is `none`. */
  async flushed(): Promise<void> {
    const target = await this.allWritten()
    while (this.durability !== 'none' && this.synced < target && !this.failure) {
      await (this.syncing ??= this.sync())
    }
    if (this.failure) throw this.failure
  }

  /** Flushes, closes the file and releases the lock; a later write opens (and locks) it again. */
  async close(): Promise<void> {
    await this.flushed().catch(() => {})
    const file = this.file
    this.file = undefined
    if (file) await (await file.catch(() => undefined))?.close().catch(() => {})
    const held = this.held
    this.held = undefined
    await held?.release()
  }

  protected async writeBatch(batch: string[]): Promise<void> {
    const file = await (this.file ??= this.openFile())
    // A plain write reaches the page cache in microseconds and never waits for the disk, so it is made in
    // place, not through the thread pool; the fsync (the slow part) stays asynchronous.
    writeFully(file.fd, batch.join(''))
    // An open file outlives its name: writes to a deleted log would succeed and reach nothing anyone reads.
    // (With `turn`, the check runs once per turn, at the fsync.)
    if (this.durability !== 'turn') checkLinked(file)
    if (this.durability === 'event') {
      await file.datasync()
      this.synced = this.writtenLines + batch.length
    }
  }

  private async openFile(): Promise<FileHandle> {
    if (!this.fresh) {
      await this.lock()
      const file = await openLog(this.path, 'append', this.options.sessionId)
      try {
        await this.mendTail(file)
      } catch (error) {
        await file.close().catch(() => {})
        throw error
      }
      return file
    }
    await makeFolder(dirname(this.path), FOLDER_MODE)
    try {
      await this.lock()
    } catch (error) {
      if (!SessionError.is(error, 'BUSY')) throw error
      throw new Error(`another store created this session's log after this one created the session (${error.message})`)
    }
    try {
      const file = await createLog(this.path)
      this.fresh = false
      return file
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      throw new Error('another store created this session\'s log after this one created the session')
    }
  }

  // the tail is mended only by the session's writer, under its lock, and only if the file is as it was read
  private async mendTail(file: FileHandle): Promise<void> {
    const repair = this.repair
    if (!repair) return
    const { size } = await file.stat()
    if (size !== repair.size) {
      throw new Error(`the log changed size since it was read (${repair.size} → ${size} bytes); it is not mended nor appended to`)
    }
    if (repair.kind === 'cut') await file.truncate(repair.offset)
    else writeFully(file.fd, '\n')
    this.repair = undefined
  }

  private async sync(): Promise<void> {
    try {
      const target = this.writtenLines
      if (this.file) {
        const file = await this.file
        checkLinked(file)
        await file.datasync()
      }
      this.synced = Math.max(this.synced, target)
    } catch (error) {
      this.fail(error)
    } finally {
      this.syncing = undefined
    }
  }

  protected fail(error: unknown) {
    if (this.failure) return
    const failure = new SessionError('WRITE_FAILED', `cannot append to ${this.path}: ${describeWriteError(error, dirname(this.path))}; `
      + 'the session refuses further appends', { cause: error })
    this.failure = failure
    this.options.onFailure?.(failure)
  }
}

const DENIED = new Set(['EACCES', 'EPERM', 'EROFS'])

/**
 * The reason of a failed write as a person reads it: a permission problem names the sessions folder (where
 * the user must look) and what was refused, instead of the bare `EACCES: …, mkdir '…'`.
 */
function describeWriteError(error: unknown, folder: string): string {
  const { code, syscall, path, message } = error as NodeJS.ErrnoException
  if (!code || !DENIED.has(code)) return (error as Error).message ?? String(error)
  const what = syscall && path ? `${code}: ${syscall} ${path}` : message
  if (code === 'EROFS') return `the sessions folder ${folder} is on a read-only file system (${what}); set persistenceRoot to another folder`
  return `permission denied: this user cannot create or write in the sessions folder ${folder} (${what}); `
    + 'make it writable or set persistenceRoot to another folder'
}

/**
 * Writes all of `text` (a write may take only part of it). A write that fails part way (a full disk) is
 * undone: the file is cut back to where it ended, so a failed append leaves no torn line to warn about later.
 */
function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text)
  let written = 0
  try {
    while (written < bytes.length) written += nodeFs.writeSync(fd, bytes, written, bytes.length - written)
  } catch (error) {
    if (written > 0) {
      try {
        nodeFs.ftruncateSync(fd, nodeFs.fstatSync(fd).size - written)
      } catch {
        // the torn line stays; the loader skips it and the next append cuts it off
      }
    }
    throw error
  }
}

/** Throws when the log was deleted: an open file outlives its name. A stat of an open file never waits for the disk. */
function checkLinked(file: FileHandle): void {
  if (nodeFs.fstatSync(file.fd).nlink === 0) throw new Error('the file was deleted while the session was open')
}

/**
 * Checks that a new session may take `path`: fails with EXISTS when a log is there, and with the file
 * system's error when the path cannot be a file in a folder (a part of it is a file, say). Writes nothing.
 */
export async function checkLogFree(path: string): Promise<void> {
  try {
    await fs.lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  throw new SessionError('EXISTS', `session log ${path} already exists; use open() or openOrCreate()`)
}

export interface LoadHooks {
  warn(message: string): void
  /** The writer that appends to this log once loaded; its lock is taken before the log is read. */
  writer: JsonlWriter
  /** Passed to the line reader (tests use small chunks). */
  read?: ReadLinesOptions
}

/**
 * Loads a session from its JSONL log, read as a stream of lines, so a log of any size opens. Only a
 * regular file of this user is read (see `openLog`). A torn last line (invalid JSON, as after a crash
 * mid-write) is reported through `warn` and left in the file: loading writes nothing, and the writer cuts
 * it off at its first write. Any other bad line fails naming file and line, and a line over the length
 * limit fails naming the limit.
 */
export async function loadSession(id: string, path: string, hooks: LoadHooks): Promise<Session> {
  const file = await openLog(path, 'read', id)
  let size: number
  try {
    size = (await file.stat()).size
    await hooks.writer.lock()
  } catch (error) {
    await file.close().catch(() => {})
    throw error
  }
  const session = new Session(id, { resumed: true, sink: hooks.writer })
  let torn: LogLine | undefined
  let tornReason = ''
  let last: LogLine | undefined
  for await (const batch of readLineBatches(path, hooks.read, file)) {
    for (const line of batch) {
      if (torn) {
        throw new SessionError('CORRUPT_LINE', `${path}, line ${torn.number}: not valid JSON (${tornReason})`)
      }
      last = line
      let record: unknown
      try {
        record = JSON.parse(line.text)
      } catch (error) {
        torn = line
        tornReason = (error as Error).message
        continue
      }
      try {
        session[restoreEvent](record)
      } catch (error) {
        if (!SessionError.is(error)) throw error
        throw new SessionError(error.code, `${path}, line ${line.number}: ${error.message}`, { cause: error })
      }
    }
  }

  if (torn) {
    hooks.writer.repairTail({ kind: 'cut', size, offset: torn.offset })
    hooks.warn(`${path}, line ${torn.number}: skipped a torn last line (${size - torn.offset} bytes of invalid JSON, `
      + 'likely an interrupted write); the next append cuts it off the file')
  } else if (last && !last.terminated) {
    // A complete last record without its newline: the next append finishes the line first.
    hooks.writer.repairTail({ kind: 'newline', size })
  }
  return session
}
