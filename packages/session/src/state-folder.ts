import { createHash } from 'node:crypto'
import { homedir, userInfo } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'

/** The environment variables the state folder depends on. */
export type StateEnv = Readonly<Record<string, string | undefined>> & {
  XDG_STATE_HOME?: string
  HOME?: string
}

/**
 * The user's state folder, as the XDG Base Directory specification defines it: `$XDG_STATE_HOME` when it
 * is an absolute path (a relative one is invalid and ignored), else `$HOME/.local/state` (the account's
 * home folder when `HOME` is unset or relative).
 */
export function stateHome(env: StateEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME
  if (xdg && isAbsolute(xdg)) return xdg
  const home = env.HOME && isAbsolute(env.HOME) ? env.HOME : accountHome()
  return join(home, '.local', 'state')
}

// os.homedir() would return a relative $HOME as it is; the account's entry names a real folder
function accountHome(): string {
  try {
    return userInfo().homedir
  } catch {
    return homedir()
  }
}

/** DSH's own folder inside the state folder: `<state>/dsh`. */
export function dshStateFolder(env: StateEnv = process.env): string {
  return join(stateHome(env), 'dsh')
}

const KEY_CHARS = 60

/**
 * A folder name standing for one working folder: the path's letters, digits, `_` and `-` (other runs
 * become one `-`, the last 60 characters kept, since the end of a path tells most), then 10 hex digits of
 * the SHA-256 of the whole absolute path, so two folders that read alike never share a name.
 */
export function workingFolderKey(cwd: string): string {
  const absolute = resolve(cwd)
  const readable = absolute.replace(/[^A-Za-z0-9_-]+/g, '-').slice(-KEY_CHARS).replace(/^-+|-+$/g, '') || 'root'
  const hash = createHash('sha256').update(absolute).digest('hex').slice(0, 10)
  return `${readable}-${hash}`
}

/** Where the JSONL store keeps sessions when `persistenceRoot` is not set: `<state>/dsh/sessions/<key of cwd>`. */
export function defaultSessionRoot(cwd: string = process.cwd(), env: StateEnv = process.env): string {
  return join(dshStateFolder(env), 'sessions', workingFolderKey(cwd))
}
