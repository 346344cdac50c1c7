import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Context } from 'cordis'
import type { ToolSchema } from 'dsh-core'
import { setup } from './setup.ts'

// Schema trees with what JSON treats specially: NaN and ±Infinity (null), -0 (0), undefined members (dropped),
// null-prototype objects, a "__proto__" key, integer-like keys (which objects enumerate first).
const key = fc.constantFrom('type', 'properties', 'a', 'b', 'required', '__proto__', '10', '2')
const leaf = fc.oneof(
  fc.constant(null), fc.boolean(), fc.integer({ min: -2, max: 2 }), fc.constantFrom(NaN, -0, 0, 1.5, Infinity, -Infinity),
  fc.string({ maxLength: 2 }), fc.constant(undefined),
)
const { node } = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
}))
const parameters = fc.dictionary(key, node, { maxKeys: 4 })

type Json = unknown

/** A deep copy that keeps prototypes (null or Object), key order, holes' values and a "__proto__" data key. */
function clone(value: Json): Json {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(clone)
  const copy = Object.create(Object.getPrototypeOf(value))
  for (const name of Object.keys(value)) define(copy, name, clone((value as Record<string, Json>)[name]))
  return copy
}

function define(target: object, name: string, value: Json) {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true })
}

/** Every path to a node of `value`, the root (`[]`) included. */
function paths(value: Json, at: (string | number)[] = []): (string | number)[][] {
  const found = [at]
  if (value !== null && typeof value === 'object') {
    for (const name of Object.keys(value)) found.push(...paths((value as Record<string, Json>)[name], [...at, Array.isArray(value) ? Number(name) : name]))
  }
  return found
}

type Change = { kind: 'replace'; value: Json } | { kind: 'delete' } | { kind: 'add'; name: string; value: Json }
  | { kind: 'flip' } | { kind: 'reorder' } | { kind: 'retype' }

const change: fc.Arbitrary<Change> = fc.oneof(
  node.map((value) => ({ kind: 'replace' as const, value })),
  fc.constant({ kind: 'delete' as const }),
  fc.record({ kind: fc.constant('add' as const), name: key, value: node }),
  fc.constant({ kind: 'flip' as const }),
  fc.constant({ kind: 'reorder' as const }),
  fc.constant({ kind: 'retype' as const }),
)

function changed(node: Json, edit: Change): Json {
  const isObject = node !== null && typeof node === 'object'
  switch (edit.kind) {
    case 'replace': return edit.value
    case 'delete':
      if (Array.isArray(node)) return node.slice(0, -1)
      if (!isObject) return undefined
      { const copy = clone(node) as Record<string, Json>; const first = Object.keys(copy)[0]; if (first !== undefined) delete copy[first]; return copy }
    case 'add':
      if (Array.isArray(node)) return [...node, edit.value]
      if (!isObject) return { [edit.name]: edit.value }
      { const copy = clone(node) as object; define(copy, edit.name, edit.value); return copy }
    case 'flip':
      if (Array.isArray(node)) return Object.assign({}, node)
      return isObject ? Object.values(node) : [node]
    case 'reorder': {
      if (!isObject || Array.isArray(node)) return Array.isArray(node) ? [...node].reverse() : node
      const copy = Object.create(Object.getPrototypeOf(node))
      for (const name of Object.keys(node).reverse()) define(copy, name, (node as Record<string, Json>)[name])
      return copy
    }
    case 'retype':
      if (typeof node === 'number') return String(node)
      if (typeof node === 'string') return node.length
      if (typeof node === 'boolean') return node ? 1 : 0
      return node === null ? 'null' : JSON.stringify(node) ?? null
  }
}

/** `value` with the node at `path` changed; an empty path changes the root. */
function at(value: Json, path: (string | number)[], edit: Change): Json {
  if (path.length === 0) return changed(value, edit)
  const copy = clone(value) as Record<string | number, Json>
  const [head, ...rest] = path
  define(copy, String(head), at(copy[head!], rest, edit))
  return copy
}

/** The bytes (or the error code) an assembly of `schemas` gives. */
type Outcome = { bytes: string } | { code: unknown }

async function outcome(ctx: Context): Promise<Outcome> {
  try {
    return { bytes: JSON.stringify((await ctx.systemPrompt.assemble()).tools) }
  } catch (error) {
    return { code: (error as { code?: unknown }).code ?? String(error) }
  }
}

/** A provider that builds its schemas anew (a deep copy of `current`) on every call. */
async function bridge() {
  const ctx = await setup()
  const state = { current: [] as ToolSchema[] }
  await ctx.plugin({ name: 'bridge', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: clone(state.current) as ToolSchema[] })) } })
  return { ctx, state }
}

/** What a service that never saw any earlier answer makes of `schemas`: the full way, no fast path. */
async function reference(schemas: ToolSchema[]): Promise<Outcome> {
  const { ctx, state } = await bridge()
  state.current = schemas
  return outcome(ctx)
}

const tools = fc.tuple(parameters, parameters).map(([a, b]) => [
  { name: 'alpha', description: 'first', parameters: a },
  { name: 'beta', description: 'second', parameters: b },
] as ToolSchema[])

describe('schemas built anew on every call', () => {
  it('are recognized when equal: the last snapshots are reused', async () => {
    const { ctx, state } = await bridge()
    state.current = [{ name: 'read', description: 'Read.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }]
    const first = await ctx.systemPrompt.assemble()
    const second = await ctx.systemPrompt.assemble()
    expect(second.tools[0]).toBe(first.tools[0])
    expect(Object.isFrozen(second.tools[0]!.parameters)).toBe(true)
  })

  it('never give a stale schema: after any change at any depth the bytes are those of a fresh service', async () => {
    await fc.assert(fc.asyncProperty(tools, fc.nat(), fc.nat(1), change, async (base, pick, which, edit) => {
      const { ctx, state } = await bridge()
      state.current = base
      const before = await outcome(ctx)
      expect(before).toEqual(await reference(base))
      // the same answer built anew: the fast path, which gives the same bytes
      expect(await outcome(ctx)).toEqual(before)
      const target = base[which]!
      const choices = paths(target.parameters)
      const path = choices[pick % choices.length]!
      const next = base.map((tool) => tool === target ? { ...tool, parameters: at(tool.parameters, path, edit) as object } : tool)
      state.current = next
      expect(await outcome(ctx)).toEqual(await reference(next))
      state.current = base
      expect(await outcome(ctx)).toEqual(before)
    }), { numRuns: 150 })
  })

  it('with keys in another order, or members that JSON drops, give the same bytes as the full way', async () => {
    await fc.assert(fc.asyncProperty(tools, fc.nat(), async (base, pick) => {
      const { ctx, state } = await bridge()
      state.current = base
      await outcome(ctx)
      const target = base[pick % 2]!
      const choices = paths(target.parameters).filter((path) => path.length === 0 || typeof path[path.length - 1] === 'string')
      const path = choices[pick % choices.length]!
      const reordered = at(target.parameters, path, { kind: 'reorder' })
      const padded = at(reordered, [], { kind: 'add', name: 'dropped_by_json', value: undefined })
      const next = base.map((tool) => tool === target ? { ...tool, parameters: padded as object } : tool)
      state.current = next
      expect(await outcome(ctx)).toEqual(await reference(next))
    }), { numRuns: 200 })
  })

  it('see a changed name or description, and a tool added, removed or moved', async () => {
    const { ctx, state } = await bridge()
    const read = { name: 'read', description: 'Read.', parameters: { type: 'object' } }
    const list = { name: 'list', description: 'List.', parameters: { type: 'object' } }
    state.current = [read, list]
    await ctx.systemPrompt.assemble()
    for (const next of [[{ ...read, description: 'Read!' }, list], [{ ...read, name: 'reed' }, list], [read], [read, list, { ...list, name: 'more' }], [list, read]]) {
      state.current = next
      expect(await outcome(ctx)).toEqual(await reference(next))
    }
  })
})
