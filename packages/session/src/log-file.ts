import { constants, type Stats } from 'node:fs'
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { SessionError } from './errors.ts'

/** Session folders are made 0700 and logs 0600: prompts and tool output are private. */
export const FOLDER_MODE = 0o700
export const FILE_MODE = 0o600

// O_NOFOLLOW: a symbolic link planted where a log should be is refused, never written through;
// O_NONBLOCK: a FIFO planted there cannot hang the open (the fstat check then refuses it).
const SAFE = constants.O_NOFOLLOW | constants.O_NONBLOCK

/**
 * Opens an existing session log for reading (`read`) or appending (`append`): only a regular file owned
 * by this user is accepted; a link, a folder, a device or another user's file fails naming the path.
 * A missing file fails with NOT_FOUND.
 */
export async function openLog(path: string, mode: 'read' | 'append', sessionId: string): Promise<FileHandle> {
  const flags = mode === 'read' ? constants.O_RDONLY : constants.O_WRONLY | constants.O_APPEND
  let file: FileHandle
  try {
    file = await open(path, flags | SAFE)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new SessionError('NOT_FOUND', `session "${sessionId}" has no log at ${path}`)
    if (code === 'ELOOP') throw notAFile(path, 'a symbolic link')
    if (code === 'EISDIR') throw notAFile(path, 'a folder')
    throw error
  }
  try {
    checkRegular(path, await file.stat())
    return file
  } catch (error) {
    await file.close().catch(() => {})
    throw error
  }
}

/** Creates a new log, failing with the file system's EEXIST when anything (a link too) is at `path`. */
export function createLog(path: string): Promise<FileHandle> {
  return open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | SAFE, FILE_MODE)
}

function checkRegular(path: string, stat: Stats): void {
  if (stat.isDirectory()) throw notAFile(path, 'a folder')
  if (!stat.isFile()) throw notAFile(path, 'a special file')
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) {
    throw new SessionError('UNSAFE_FILE', `session log ${path} is owned by user id ${stat.uid}, not by this user (${uid}); `
      + 'it is not opened')
  }
}

function notAFile(path: string, what: string): SessionError {
  return new SessionError('UNSAFE_FILE', `session log ${path} is ${what}, not a regular file; it is not opened`)
}

/**
 * Creates `folder` and its missing parents (`mode` for each one made). Node's recursive mkdir answers
 * ENOENT when a missing parent cannot be made, as on a read-only file system; then the first missing
 * folder is made on its own, and its own error (EROFS, EACCES…) is thrown instead.
 */
export async function makeFolder(folder: string, mode?: number): Promise<void> {
  try {
    await mkdir(folder, { recursive: true, mode })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    let missing = resolve(folder)
    while (dirname(missing) !== missing && !await exists(dirname(missing))) missing = dirname(missing)
    await mkdir(missing, { mode })
    await mkdir(folder, { recursive: true, mode })
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false)
}
