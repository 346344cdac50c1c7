import { describeValue } from 'dsh-core'
import { SessionError } from './errors.ts'

type Fail = (path: string, expected: string, value: unknown) => never
type Check = (value: unknown, path: string, fail: Fail) => void

interface Field {
  check: Check
  optional?: boolean
}

const count: Check = (v, path, fail) => {
  if (!Number.isSafeInteger(v) || (v as number) < 0) fail(path, 'a non-negative integer', v)
}
const seqRef: Check = (v, path, fail) => {
  if (!Number.isSafeInteger(v) || (v as number) < 1) fail(path, 'a positive integer (an event seq)', v)
}
const str: Check = (v, path, fail) => {
  if (typeof v !== 'string') fail(path, 'a string', v)
}
const name: Check = (v, path, fail) => {
  if (typeof v !== 'string' || v === '') fail(path, 'a non-empty string', v)
}
const nonBlank: Check = (v, path, fail) => {
  if (typeof v !== 'string' || !v.trim()) fail(path, 'a string with visible text', v)
}
const bool: Check = (v, path, fail) => {
  if (typeof v !== 'boolean') fail(path, 'a boolean', v)
}
const trueOnly: Check = (v, path, fail) => {
  if (v !== true) fail(path, 'true or absent', v)
}
const oneOf = (...values: string[]): Check => (v, path, fail) => {
  if (!values.includes(v as string)) fail(path, `one of ${values.map(x => JSON.stringify(x)).join(', ')}`, v)
}
const jsonObject: Check = (v, path, fail) => {
  if (!isPlainObject(v)) fail(path, 'a JSON object', v)
  const problem = findNonJson(v, path)
  if (problem) fail(problem.path, `JSON (${problem.reason})`, problem.value)
}
const nested = (fields: Record<string, Field>, what: string): Check => (v, path, fail) => {
  if (!isPlainObject(v)) fail(path, what, v)
  checkFields(v as Record<string, unknown>, fields, path, fail)
}
const listOf = (item: Check, what: string): Check => (v, path, fail) => {
  if (!Array.isArray(v)) fail(path, `an array of ${what}`, v)
  ;(v as unknown[]).forEach((entry, i) => item(entry, `${path}[${i}]`, fail))
}

const uniqueNames = (inner: Check): Check => (v, path, fail) => {
  inner(v, path, fail)
  const seen = new Set<string>()
  ;(v as { name: string }[]).forEach((tool, i) => {
    if (seen.has(tool.name)) fail(`${path}[${i}].name`, 'unique within the list (duplicate tool name)', tool.name)
    seen.add(tool.name)
  })
}

const names = listOf(name, 'tool names')
const toolDefinition = nested({ name: { check: name }, description: { check: str }, parameters: { check: jsonObject } }, 'a tool definition')
const toolCall = nested({ id: { check: str }, name: { check: name }, arguments: { check: jsonObject } }, 'a tool call')
const usage = nested({
  inputTokens: { check: count },
  outputTokens: { check: count },
  cacheReadTokens: { check: count },
  cacheWriteTokens: { check: count },
  /** The offline model's figures, from an emulated prompt cache. */
  emulated: { check: trueOnly, optional: true },
}, 'a usage record')
const headerFields = nested({
  model: { check: str },
  system: { check: str },
  tools: { check: uniqueNames(listOf(toolDefinition, 'tool definitions')) },
  deferredTools: { check: names, optional: true },
}, 'a request header')
/** Deferred names are a non-empty list of declared tools, unique, in the tools' order (one spelling per set). */
const header: Check = (v, path, fail) => {
  headerFields(v, path, fail)
  const { tools, deferredTools } = v as { tools: { name: string }[]; deferredTools?: string[] }
  if (deferredTools === undefined) return
  if (deferredTools.length === 0) fail(`${path}.deferredTools`, 'absent or a non-empty list of tool names', deferredTools)
  const order = tools.map((tool) => tool.name)
  let last = -1
  deferredTools.forEach((name, i) => {
    const at = order.indexOf(name)
    if (at < 0) fail(`${path}.deferredTools[${i}]`, 'the name of a tool in header.tools', name)
    if (at <= last) fail(`${path}.deferredTools[${i}]`, 'unique and in header.tools order', name)
    last = at
  })
}
const errorInfo = nested({ message: { check: str } }, 'an error record')

const turn = { check: count }
const step = { check: count }

const CORE: Record<string, Record<string, Field>> = {
  'turn/start': { turn },
  'step/start': { turn, step },
  'user/message': { turn, text: { check: str } },
  'user/refused': { turn, messageSeq: { check: seqRef } },
  'request/header': { turn, step, reason: { check: oneOf('initial', 'resume', 'change', 'model') }, header: { check: header } },
  'model/switch': { turn, from: { check: name }, to: { check: name } },
  'developer/message': {
    turn, step,
    source: { check: oneOf('tool-registry') },
    added: { check: names },
    removed: { check: names },
    headerSeq: { check: seqRef },
  },
  'assistant/message': {
    turn, step,
    text: { check: str },
    toolCalls: { check: listOf(toolCall, 'tool calls') },
    usage: { check: usage, optional: true },
  },
  'tool/call': { turn, step, id: { check: str }, name: { check: name }, arguments: { check: jsonObject } },
  'tool/result': { turn, step, id: { check: str }, name: { check: name }, output: { check: str }, isError: { check: bool } },
  'step/end': { turn, step },
  'turn/end': { turn, reason: { check: oneOf('done', 'error', 'cancelled', 'step_limit') }, error: { check: errorInfo, optional: true } },
  'sequence/reset': { reason: { check: str } },
  'context/compaction': {
    turn, step,
    reason: { check: oneOf('auto', 'manual') },
    // An empty summary would silently wipe the history it replaces.
    summary: { check: nonBlank },
    throughSeq: { check: seqRef },
    usage: { check: usage, optional: true },
  },
  'context/snapshot': {
    turn, step,
    text: { check: nonBlank },
    sections: { check: listOf(nested({ name: { check: name }, text: { check: str } }, 'a context section { name, text }'), 'context sections') },
  },
  'permission/decision': {
    turn, step,
    id: { check: str },
    name: { check: name },
    decision: { check: oneOf('allow', 'deny') },
    by: { check: oneOf('policy', 'session', 'user', 'unanswered', 'cancelled') },
    rule: { check: oneOf('permissions.deny', 'permissions.allow', 'permissions.default', 'readOnlyHint'), optional: true },
    pattern: { check: name, optional: true },
    answer: { check: oneOf('allow-once', 'allow-always', 'deny'), optional: true },
  },
}

/** Event types whose data this package validates field by field. */
export const CORE_EVENT_TYPES: readonly string[] = Object.freeze(Object.keys(CORE))

/** Type prefixes owned by this package; extension types must use another prefix. */
export const CORE_PREFIXES: readonly string[] = Object.freeze([...new Set(CORE_EVENT_TYPES.map(t => t.split('/')[0]!))])

const EXTENSION_TYPE = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/

/** Throws a SessionError (INVALID_EVENT) unless `data` is a valid payload for `type`. */
export function validateEvent(type: unknown, data: unknown): void {
  if (typeof type !== 'string') {
    throw new SessionError('INVALID_EVENT', `event type must be a string, got ${describeValue(type)}`)
  }
  const fail: Fail = (path, expected, got) => {
    throw new SessionError('INVALID_EVENT', `${type}: field "${path}" must be ${expected}, got ${describeValue(got)}`)
  }
  // own keys only: `constructor` or `toString` are no event types
  const fields = Object.hasOwn(CORE, type) ? CORE[type] : undefined
  if (fields) {
    if (!isPlainObject(data)) {
      throw new SessionError('INVALID_EVENT', `${type}: data must be an object, got ${describeValue(data)}`)
    }
    checkFields(data, fields, '', fail)
    return
  }
  if (!EXTENSION_TYPE.test(type) || CORE_PREFIXES.includes(type.split('/')[0]!)) {
    throw new SessionError('INVALID_EVENT', `unknown event type ${JSON.stringify(type)}; core types: ${CORE_EVENT_TYPES.join(', ')}; `
      + `extension types look like "prefix/verb" with a prefix other than ${CORE_PREFIXES.join(', ')}`)
  }
  if (!isPlainObject(data)) {
    throw new SessionError('INVALID_EVENT', `${type}: data must be a JSON object, got ${describeValue(data)}`)
  }
  const problem = findNonJson(data, '')
  if (problem) fail(problem.path, `JSON (${problem.reason})`, problem.value)
}

// Field lists are fixed: listed once each, not on every event (logs of millions of events are validated on load).
const fieldLists = new WeakMap<Record<string, Field>, readonly (readonly [string, Field])[]>()

function checkFields(data: Record<string, unknown>, fields: Record<string, Field>, base: string, fail: Fail): void {
  for (const key in data) {
    if (!Object.hasOwn(fields, key) && Object.hasOwn(data, key) && data[key] !== undefined) {
      fail(base ? `${base}.${key}` : key, `absent (unknown field; valid fields: ${Object.keys(fields).join(', ')})`, data[key])
    }
  }
  let list = fieldLists.get(fields)
  if (!list) fieldLists.set(fields, list = Object.entries(fields))
  for (const [key, field] of list) {
    const value = data[key]
    if (value === undefined && field.optional) continue
    field.check(value, base ? `${base}.${key}` : key, fail)
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

interface JsonProblem {
  path: string
  reason: string
  value: unknown
}

/** Finds the first value JSON cannot carry faithfully (it would be dropped, nulled or thrown on). */
function findNonJson(value: unknown, path: string, seen = new Set<object>()): JsonProblem | undefined {
  const here = path || 'data'
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return
    case 'number':
      return Number.isFinite(value) ? undefined : { path: here, reason: 'numbers must be finite', value }
    case 'object':
      break
    default:
      return { path: here, reason: `JSON has no ${typeof value}`, value }
  }
  if (value === null) return
  if (seen.has(value)) return { path: here, reason: 'circular reference', value }
  seen.add(value)
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = value[i] === undefined
          ? { path: `${path}[${i}]`, reason: 'arrays cannot hold undefined', value: undefined }
          : findNonJson(value[i], `${path}[${i}]`, seen)
        if (problem) return problem
      }
      return
    }
    if (!isPlainObject(value)) return { path: here, reason: 'only plain objects', value }
    for (const [key, item] of Object.entries(value)) {
      // An undefined property is simply absent in JSON, as for optional fields.
      if (item === undefined) continue
      const problem = findNonJson(item, path ? `${path}.${key}` : key, seen)
      if (problem) return problem
    }
  } finally {
    seen.delete(value)
  }
}
