import { type AnySchema, isOpenRecord, ruleOf } from './event-schema.ts'
import { findNonJson, isPlainObject } from './json.ts'

/** Reports a bad field: its path in the data, what is valid there, and what was there. */
export type Fail = (path: string, expected: string, value: unknown) => never

/** A compiled check of one value at `path`. */
export type Check = (value: unknown, path: string, fail: Fail) => void

interface Field {
  key: string
  check: Check
  optional: boolean
}

// Compiled once per schema: logs of millions of events are validated on load.
const compiled = new WeakMap<AnySchema, Check>()

/**
 * The check of an event schema, with the session log's messages: the schema's `description` says what is
 * valid (`a positive integer (an event seq)`), else the kind does (`a string`, `one of "a", "b"`). Throws
 * for a schema kind the log cannot hold (dates, functions, class instances…).
 */
export function checkOf(schema: AnySchema): Check {
  let check = compiled.get(schema)
  if (!check) compiled.set(schema, check = compile(schema))
  return check
}

function compile(schema: AnySchema): Check {
  const described: string | undefined = typeof schema.meta.description === 'string' ? schema.meta.description : undefined
  const { min, max, pattern, step } = schema.meta
  switch (schema.type) {
    case 'string': {
      const expected = described ?? (min ? 'a non-empty string' : 'a string')
      const regexp = pattern && new RegExp(pattern.source, pattern.flags)
      return (v, path, fail) => {
        if (typeof v !== 'string' || (min !== undefined && v.length < min) || (max !== undefined && v.length > max) || (regexp && !regexp.test(v))) {
          fail(path, expected, v)
        }
      }
    }
    case 'number': {
      const integer = step === 1
      const expected = described ?? (integer ? (min === 0 ? 'a non-negative integer' : min === 1 ? 'a positive integer' : 'an integer') : 'a finite number')
      return (v, path, fail) => {
        const ok = integer ? Number.isSafeInteger(v) : typeof v === 'number' && Number.isFinite(v)
        if (!ok || (min !== undefined && (v as number) < min) || (max !== undefined && (v as number) > max)) fail(path, expected, v)
      }
    }
    case 'boolean': {
      const expected = described ?? 'a boolean'
      return (v, path, fail) => {
        if (typeof v !== 'boolean') fail(path, expected, v)
      }
    }
    case 'const': {
      const expected = described ?? JSON.stringify(schema.value)
      return (v, path, fail) => {
        if (v !== schema.value) fail(path, expected, v)
      }
    }
    case 'union': {
      const list: AnySchema[] = schema.list ?? []
      if (!list.every((item) => item.type === 'const' && typeof item.value === 'string')) break
      const values = list.map((item) => item.value as string)
      const expected = described ?? `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`
      return (v, path, fail) => {
        if (!values.includes(v as string)) fail(path, expected, v)
      }
    }
    case 'array': {
      const item = checkOf(schema.inner!)
      const expected = described ?? 'an array'
      return (v, path, fail) => {
        if (!Array.isArray(v)) fail(path, expected, v)
        ;(v as unknown[]).forEach((entry, i) => item(entry, `${path}[${i}]`, fail))
      }
    }
    case 'any':
      return (v, path, fail) => {
        const problem = findNonJson(v, path)
        if (problem) fail(problem.path, `JSON (${problem.reason})`, problem.value)
      }
    case 'dict': {
      const expected = described ?? 'a JSON object'
      const value = checkOf(schema.inner!)
      return (v, path, fail) => {
        if (!isPlainObject(v)) fail(path, expected, v)
        if (schema.inner!.type === 'any') {
          // one walk with a cycle guard, rather than one per value
          const problem = findNonJson(v, path)
          if (problem) fail(problem.path, `JSON (${problem.reason})`, problem.value)
          return
        }
        for (const [key, item] of Object.entries(v as Record<string, unknown>)) value(item, path ? `${path}.${key}` : key, fail)
      }
    }
    case 'object':
      return recordCheck(schema, described ?? 'a JSON object')
    case 'transform': {
      const rule = ruleOf(schema)
      if (!rule) break
      const inner = checkOf(schema.inner!)
      return (v, path, fail) => {
        inner(v, path, fail)
        rule(v, (at, expected, got) => fail(`${path}${at}`, expected, got))
      }
    }
  }
  throw new TypeError(`dsh-session: an event schema cannot be of kind "${schema.type}"${schema.type === 'union' ? ' (only a union of strings)' : ''}; `
    + 'valid kinds: string, number, boolean, const, a union of strings, array, dict, any, object, and refine()')
}

function recordCheck(schema: AnySchema, expected: string): Check {
  const fields: Field[] = Object.entries(schema.dict as Record<string, AnySchema>)
    .map(([key, field]) => ({ key, check: checkOf(field), optional: !field.meta.required }))
  const names = fields.map((field) => field.key)
  const known = new Set(names)
  const open = isOpenRecord(schema)
  return (v, path, fail) => {
    if (!isPlainObject(v)) fail(path, expected, v)
    const data = v as Record<string, unknown>
    for (const key in data) {
      if (known.has(key) || !Object.hasOwn(data, key) || data[key] === undefined) continue
      const at = path ? `${path}.${key}` : key
      if (!open) fail(at, `absent (unknown field; valid fields: ${names.join(', ')})`, data[key])
      const problem = findNonJson(data[key], at)
      if (problem) fail(problem.path, `JSON (${problem.reason})`, problem.value)
    }
    for (const field of fields) {
      const value = data[field.key]
      if (value === undefined && field.optional) continue
      field.check(value, path ? `${path}.${field.key}` : field.key, fail)
    }
  }
}
