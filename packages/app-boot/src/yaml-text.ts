import { LineCounter, YAMLError, isScalar, parseDocument, visit } from 'yaml'
import { invalidUtf8Offset, lineAt } from 'dsh-core'
import { AppBootError } from './errors.ts'

/** How many alias expansions one app file may make; the YAML library's default. */
export const MAX_ALIASES = 100

/** Keys JavaScript reads as an object's prototype instead of data: a map would lose the entry or change its defaults. */
const PROTOTYPE_KEY = '__proto__'

/**
 * The bytes of an app file as text: a UTF-8 byte order mark is dropped, and a byte sequence that is not
 * UTF-8 is an error naming its byte offset and line (instead of a silent U+FFFD in a value).
 */
export function decodeAppFile(bytes: Uint8Array, shown: string): string {
  const offset = invalidUtf8Offset(bytes)
  // TextDecoder drops a leading BOM (Buffer#toString would keep it as U+FEFF)
  if (offset === undefined) return new TextDecoder('utf-8').decode(bytes)
  const line = lineAt(bytes, offset)
  const hex = Array.from(bytes.subarray(offset, offset + 4), (byte) => byte.toString(16).padStart(2, '0')).join(' ')
  throw new AppBootError('INVALID_ENCODING', `${shown}: not valid UTF-8 at byte offset ${offset} (line ${line}, bytes ${hex}); save the file as UTF-8`)
}

/** The ` at line L, column C: …` the library appends to a message (and its excerpt); the message names the place itself. */
const LOCATION_SUFFIX = / at line \d+, column \d+:?[\s\S]*$/

function position(counter: LineCounter, offset: number): string {
  const { line, col } = counter.linePos(offset)
  return `line ${line}, column ${col}`
}

function syntaxError(error: YAMLError): string {
  const at = error.linePos?.[0]
  const where = at ? ` at line ${at.line}, column ${at.col}` : ''
  const reason = error.message.replace(LOCATION_SUFFIX, '')
  return `YAML syntax error${where}: ${reason}`
}

/**
 * Parses the YAML of an app file into plain data, or throws one `AppBootError` naming the file and the line:
 * a syntax error, an alias bomb, a tag the core schema does not know (`!foo`, and also `!!binary`,
 * `!!set`, `!!timestamp`, which would make a Buffer, a Set or a Date instead of JSON-like data), or a
 * `__proto__` key.
 */
export function parseYaml(text: string, shown: string): unknown {
  const counter = new LineCounter()
  const document = parseDocument(text, { lineCounter: counter, resolveKnownTags: false })
  const [error] = document.errors
  if (error) throw new AppBootError('YAML_SYNTAX', `${shown}: ${syntaxError(error)}`)
  for (const warning of document.warnings) {
    if (warning.code === 'TAG_RESOLVE_FAILED') {
      // as written (`!!binary`), not as resolved (`tag:yaml.org,2002:binary`)
      const tag = text.slice(warning.pos[0], warning.pos[1]).trim() || /Unresolved tag: (\S+)/.exec(warning.message)?.[1]
      throw new AppBootError('YAML_SYNTAX', `${shown}: ${position(counter, warning.pos[0])}: unknown YAML tag ${JSON.stringify(tag)}; `
        + 'app files take plain values (tags of the YAML core schema only: !!str, !!int, !!float, !!bool, !!null, !!seq, !!map)')
    }
    throw new AppBootError('YAML_SYNTAX', `${shown}: ${position(counter, warning.pos[0])}: ${warning.message.replace(LOCATION_SUFFIX, '')}`)
  }
  visit(document, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === PROTOTYPE_KEY) {
        throw new AppBootError('FORBIDDEN_KEY', `${shown}: ${position(counter, pair.key.range?.[0] ?? 0)}: key "${PROTOTYPE_KEY}" is refused: `
          + 'JavaScript takes it as an object\'s prototype, not as data (a map would lose the entry or change its defaults); rename it')
      }
    },
    Alias(_, alias) {
      if (alias.resolve(document)) return
      throw new AppBootError('YAML_SYNTAX', `${shown}: ${position(counter, alias.range?.[0] ?? 0)}: alias ${JSON.stringify(`*${alias.source}`)} `
        + `has no anchor ${JSON.stringify(`&${alias.source}`)} before it; define the anchor first`)
    },
  })
  // an app file needs few aliases; a bound stops an alias bomb before it expands (448 bytes, 741 MB)
  try {
    return document.toJS({ maxAliasCount: MAX_ALIASES })
  } catch (error) {
    // the library throws a plain ReferenceError when aliases expand past maxAliasCount; its other one, an alias
    // without its anchor, is refused above, so no message text needs reading here
    if (error instanceof ReferenceError) {
      throw new AppBootError('YAML_SYNTAX', `${shown}: YAML aliases expand to more than ${MAX_ALIASES} nodes; refusing the file (${error.message})`)
    }
    throw error
  }
}
