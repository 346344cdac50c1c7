import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CORE_EVENTS } from '../src/event-table.ts'
import { CORE_PREFIXES } from '../src/validate.ts'
import type { AnySchema } from '../src/event-schema.ts'

// The README's list of session events is checked against the table the types and the validation come from.

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** Rows of the README's "| Type | Data |" table: the type and the first code span of its Data cell. */
function readmeRows(): Map<string, string> {
  const lines = README.split('\n')
  const start = lines.indexOf('| Type | Data |')
  expect(start, 'the README has a "| Type | Data |" table').toBeGreaterThan(0)
  const rows = new Map<string, string>()
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break
    const match = /^\| `([^`]+)` \| `((?:[^`\\]|\\.)+)`/.exec(line)
    expect(match, `a row like | \`type\` | \`{fields}\` |: ${line}`).not.toBeNull()
    rows.set(match![1]!, match![2]!.replaceAll('\\|', '|'))
  }
  return rows
}

/** Splits at commas outside braces and brackets. */
function topLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let current = ''
  for (const char of text) {
    if (char === '{' || char === '[') depth++
    if (char === '}' || char === ']') depth--
    if (char === ',' && depth === 0) {
      parts.push(current.trim())
      current = ''
    } else current += char
  }
  if (current.trim()) parts.push(current.trim())
  return parts
}

/** Refinements and arrays aside: the schema whose shape the README writes. */
function shapeOf(schema: AnySchema): AnySchema {
  return schema.type === 'transform' ? shapeOf(schema.inner!) : schema
}

/** What the README writes for a record schema, checked part by part; returns the differences. */
function compare(written: string, schema: AnySchema, where: string): string[] {
  const record = shapeOf(schema)
  if (!written.startsWith('{') || !written.endsWith('}')) return [`${where}: ${written} is not a {…} record`]
  const fields = Object.entries(record.dict as Record<string, AnySchema>)
  const parts = topLevel(written.slice(1, -1))
  const problems: string[] = []
  const names = parts.map((part) => part.split(':')[0]!.trim())
  const expected = fields.map(([key, field]) => field.meta.required ? key : `${key}?`)
  if (names.join(', ') !== expected.join(', ')) return [`${where}: the README lists {${names.join(', ')}}, the table {${expected.join(', ')}}`]
  parts.forEach((part, i) => {
    const colon = part.indexOf(':')
    if (colon < 0) return
    const spec = part.slice(colon + 1).trim()
    const field = shapeOf(fields[i]![1])
    const at = `${where}.${fields[i]![0]}`
    if (spec.startsWith("'")) {
      const values = spec.split('|').map((value) => value.trim().replace(/^'|'$/g, ''))
      const valid = (field.list ?? []).map((item: AnySchema) => item.value)
      if (field.type !== 'union' || values.join('|') !== valid.join('|')) problems.push(`${at}: the README lists ${values.join('|')}, the table ${valid.join('|') || field.type}`)
    } else if (spec.endsWith('[]')) {
      if (field.type !== 'array') problems.push(`${at}: the README writes a list, the table a ${field.type}`)
      else problems.push(...compare(spec.slice(0, -2), field.inner!, `${at}[]`))
    } else problems.push(...compare(spec, field, at))
  })
  return problems
}

describe('the README\'s list of session events', () => {
  it('names every event type of the table, and no other', () => {
    expect([...readmeRows().keys()].sort()).toEqual(Object.keys(CORE_EVENTS).sort())
  })

  it('writes each type\'s fields as the table defines them: names, order, optional ones, nested records and the values of each enum', () => {
    const rows = readmeRows()
    const problems = Object.entries(CORE_EVENTS).flatMap(([type, schema]) => rows.has(type) ? compare(rows.get(type)!, schema, type) : [])
    expect(problems).toEqual([])
  })

  it('names the core prefixes extension types may not use, as the table has them', () => {
    const listed = /whose prefix is not one of `([^`]+)`/.exec(README.replaceAll('\n', ' '))
    expect(listed?.[1]!.split(' ')).toEqual(CORE_PREFIXES)
  })

  it('catches a README row that disagrees with the table', () => {
    const schema = CORE_EVENTS['turn/end']
    expect(compare("{turn, reason: 'done'|'error'|'cancelled'|'step_limit', error?: {message}}", schema, 'turn/end')).toEqual([])
    expect(compare("{turn, reason: 'done'|'error', error?: {message}}", schema, 'turn/end')).toEqual([
      'turn/end.reason: the README lists done|error, the table done|error|cancelled|step_limit',
    ])
    expect(compare("{turn, reason: 'done'|'error'|'cancelled'|'step_limit', error: {message}}", schema, 'turn/end')[0]).toContain('error?')
    expect(compare("{turn, step, text, sections: {name}[]}", CORE_EVENTS['context/snapshot'], 'context/snapshot')[0]).toContain('sections[]')
  })
})
