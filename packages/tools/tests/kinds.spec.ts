import { describe, expect, it } from 'vitest'
import { TOOL_KINDS, kindFromHints } from '../src/index.ts'
import { ToolsError } from '../src/errors.ts'
import { setup, tool } from './setup.ts'

describe('tool kinds (ACP ToolKind)', () => {
  it('keeps a tool\'s own kind, derives one from its annotations, and answers other when nothing is known', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('grep', { kind: 'search', annotations: { readOnlyHint: true } }))
    ctx.tools.register(tool('cat', { annotations: { readOnlyHint: true } }))
    ctx.tools.register(tool('rm', { annotations: { destructiveHint: true } }))
    ctx.tools.register(tool('append', { annotations: { readOnlyHint: false, destructiveHint: false } }))
    ctx.tools.register(tool('plain'))
    expect(['grep', 'cat', 'rm', 'append', 'plain', 'unknown'].map((name) => ctx.tools.kind(name))).toEqual(['search', 'read', 'delete', 'edit', 'other', 'other'])
    expect(ctx.tools.get('grep')!.kind).toBe('search')
    expect(ctx.tools.get('plain')!.kind).toBeUndefined()
  })

  it('answers for an agent\'s own tools with { agentId }', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('mine', { kind: 'execute' }), { agentId: 'a' })
    expect(ctx.tools.kind('mine', { agentId: 'a' })).toBe('execute')
    expect(ctx.tools.kind('mine')).toBe('other')
  })

  it('maps MCP hints: read-only is read, fetch when it reaches the open world; destructive is delete; a write that destroys nothing is edit', () => {
    expect(kindFromHints({ readOnlyHint: true })).toBe('read')
    expect(kindFromHints({ readOnlyHint: true, openWorldHint: true })).toBe('fetch')
    expect(kindFromHints({ destructiveHint: true })).toBe('delete')
    expect(kindFromHints({ readOnlyHint: false })).toBe('edit')
    expect(kindFromHints({ openWorldHint: true })).toBeUndefined()
    expect(kindFromHints(undefined)).toBeUndefined()
  })

  it('refuses an unknown kind, naming the tool, the value and every ACP kind', async () => {
    const ctx = await setup()
    expect(() => ctx.tools.register(tool('x', { kind: 'write' as never }))).toThrow(ToolsError)
    expect(() => ctx.tools.register(tool('x', { kind: 'write' as never })))
      .toThrow(`tool "x" has kind "write"; a kind is one of the ACP tool kinds: ${TOOL_KINDS.join(', ')}`)
    expect(ctx.tools.has('x')).toBe(false)
  })

  it('never changes the model-facing bytes: the assembly is identical with and without kinds', async () => {
    const assembled = async (withKinds: boolean) => {
      const ctx = await setup()
      ctx.tools.register(tool('read', withKinds ? { kind: 'read' } : {}))
      ctx.tools.register(tool('write', withKinds ? { kind: 'edit' } : {}))
      ctx.tools.register(tool('rm', { annotations: { destructiveHint: true } }))
      return JSON.stringify(await ctx.systemPrompt.assemble())
    }
    const plain = await assembled(false)
    expect(await assembled(true)).toBe(plain)
    expect(plain).not.toContain('"kind"')
  })
})
