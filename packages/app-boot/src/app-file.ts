import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve as resolvePath } from 'node:path'
import { AppBootError, showValue } from './errors.ts'
import { resolveConfigPaths, resolvePluginName } from './relative-paths.ts'
import { decodeAppFile, parseYaml } from './yaml-text.ts'


/** One loader entry of an app file, after validation and relative-path resolution. */
export interface AppEntry {
  /** Unique within the file; names the entry in every error message. */
  id: string
  /** A package name, or a `file:` URL when the file wrote a path starting with `./` or `../`. */
  name: string
  /** The plugin config; `{}` when the file has none. Relative paths in it are absolute. */
  config: Record<string, unknown>
  disabled: boolean
}

const ENTRY_KEYS = ['id', 'name', 'config', 'disabled']

/** The file as error messages show it: relative to the working directory when it lies below it. */
export function displayPath(file: string): string {
  const absolute = resolvePath(file)
  const shown = relative(process.cwd(), absolute)
  return shown && !shown.startsWith('..') && !isAbsolute(shown) ? shown : absolute
}

/**
 * Reads an app file: a YAML list of `{ id, name, config?, disabled? }`. Strings starting with `./` or
 * `../` in `name` and anywhere in `config` are resolved against the file's folder. Any problem is one
 * `AppBootError` naming the file, the entry (1-based index and id) and the bad value.
 */
export async function loadAppFile(file: string): Promise<AppEntry[]> {
  return parseAppFile(await readAppFile(file), file)
}

/**
 * The text of an app file, read once (a FIFO such as `<(cat app.yml)` can be read only once): strict
 * UTF-8, its BOM dropped. Unreadable or not UTF-8 is one `AppBootError` naming the file.
 */
export async function readAppFile(file: string): Promise<string> {
  const shown = displayPath(file)
  let bytes: Uint8Array
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw new AppBootError('APP_FILE_UNREADABLE', `${shown}: cannot read app file: ${(error as Error).message}`)
  }
  return decodeAppFile(bytes, shown)
}

/** Parses and validates the text of an app file; `file` is used for messages and relative paths. */
export function parseAppFile(text: string, file: string): AppEntry[] {
  const shown = displayPath(file)
  // a BOM in text given directly (the decoder drops the one of a file)
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const document = parseYaml(text, shown)
  if (!Array.isArray(document)) {
    const empty = document == null && !/\S/.test(text.replace(/#.*$/gm, ''))
    const got = empty ? 'an empty file' : showValue(document)
    throw new AppBootError('NOT_A_LIST', `${shown}: expected a list of entries { id, name, config?, disabled? } at the top level, got ${got}`)
  }

  const baseDir = dirname(resolvePath(file))
  const firstIndex = new Map<string, number>()
  return document.map((item, index) => {
    const position = index + 1
    const fail = (code: 'INVALID_ENTRY' | 'DUPLICATE_ID', problem: string, id?: string): never => {
      const label = id === undefined ? `entry #${position}` : `entry #${position} "${id}"`
      throw new AppBootError(code, `${shown}: ${label}: ${problem}`)
    }
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      return fail('INVALID_ENTRY', `expected a mapping { id, name, config?, disabled? }, got ${showValue(item)}`)
    }
    const { id, name, config, disabled } = item as Record<string, unknown>
    if (typeof id !== 'string' || id === '') fail('INVALID_ENTRY', `"id" must be a non-empty string, got ${showValue(id)}`)
    const entryId = id as string
    if (entryId.includes(':')) fail('INVALID_ENTRY', `"id" must not contain ":" (the loader's path separator)`, entryId)
    const unknown = Object.keys(item).find((key) => !ENTRY_KEYS.includes(key))
    if (unknown !== undefined) fail('INVALID_ENTRY', `unknown key "${unknown}"; valid keys: ${ENTRY_KEYS.join(', ')}`, entryId)
    if (typeof name !== 'string' || name === '') fail('INVALID_ENTRY', `"name" must be a non-empty string, got ${showValue(name)}`, entryId)
    const isMapping = config !== null && typeof config === 'object' && !Array.isArray(config)
    if (config !== undefined && config !== null && !isMapping) {
      fail('INVALID_ENTRY', `"config" must be a mapping, got ${showValue(config)}`, entryId)
    }
    if (disabled !== undefined && disabled !== null && typeof disabled !== 'boolean') {
      fail('INVALID_ENTRY', `"disabled" must be true or false, got ${showValue(disabled)}`, entryId)
    }
    const first = firstIndex.get(entryId)
    if (first !== undefined) fail('DUPLICATE_ID', `duplicate id "${entryId}" (entry #${first} has it too)`, entryId)
    firstIndex.set(entryId, position)
    return {
      id: entryId,
      name: resolvePluginName(name as string, baseDir),
      config: resolveConfigPaths((config ?? {}) as Record<string, unknown>, baseDir),
      disabled: disabled === true,
    }
  })
}
