import nodeFs, { constants, promises as fs } from 'node:fs'
import { SessionError } from './errors.ts'

/** Lock files this process holds, removed at exit even when nobody closed their sessions. */
const held = new Set<string>()
let exitHookInstalled = false

function removeHeldAtExit(): void {
  for (const path of held) {
    try {
      nodeFs.unlinkSync(path)
    } catch {
      // gone already
    }
  }
}

/**
 * One writer per JSONL session: `<id>.lock` beside the log, holding the owner's pid, exists while a store
 * has the session open. It is made by linking a complete temporary file into place, so a reader never sees
 * a half-written lock. A lock whose process is gone is stale and taken over.
 */
export class SessionLock {
  private constructor(readonly path: string) {}

  /** Takes the lock, or fails with BUSY naming the process that holds it. */
  static async acquire(path: string, sessionId: string): Promise<SessionLock> {
    const draft = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    await fs.writeFile(draft, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await fs.link(draft, path)
          held.add(path)
          if (!exitHookInstalled) {
            exitHookInstalled = true
            process.on('exit', removeHeldAtExit)
          }
          return new SessionLock(path)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        }
        const owner = await readOwner(path)
        if (owner.pid !== undefined && (held.has(path) || (owner.pid !== process.pid && isAlive(owner.pid)))) {
          throw busy(sessionId, path, `pid ${owner.pid} holds ${path}`)
        }
        await removeStale(path, owner.ino)
      }
      throw busy(sessionId, path, `${path} keeps coming back`)
    } finally {
      await fs.unlink(draft).catch(() => {})
    }
  }

  /** Lets the lock go; a second call does nothing. */
  async release(): Promise<void> {
    if (!held.delete(this.path)) return
    await fs.unlink(this.path).catch(() => {})
  }
}

function busy(sessionId: string, path: string, holder: string): SessionError {
  return new SessionError('BUSY', `session "${sessionId}" is busy: another process is writing it (${holder}); one writer per session; `
    + 'the lock is released when that process closes the session or exits')
}

/** The pid written in a lock (undefined when the file is unreadable or holds no pid) and its inode. */
async function readOwner(path: string): Promise<{ pid: number | undefined; ino: number | undefined }> {
  let file
  try {
    file = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return { pid: undefined, ino: undefined }
  }
  try {
    const stat = await file.stat()
    const text = stat.isFile() && stat.size < 64 ? (await file.readFile('utf8')).trim() : ''
    const pid = /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : undefined
    return { pid, ino: stat.ino }
  } finally {
    await file.close()
  }
}

// a process we may not signal (EPERM) still exists
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes a stale lock, but only the one that was read: it is moved aside first, and moved back when
 * another process replaced it meanwhile with a live lock of its own.
 */
async function removeStale(path: string, ino: number | undefined): Promise<void> {
  const aside = `${path}.stale.${process.pid}.${Math.random().toString(36).slice(2)}`
  try {
    await fs.rename(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const moved = await fs.lstat(aside)
  if (ino !== undefined && moved.ino !== ino) await fs.link(aside, path).catch(() => {})
  await fs.unlink(aside).catch(() => {})
}
