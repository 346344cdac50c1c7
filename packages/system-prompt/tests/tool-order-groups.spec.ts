import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalToolOrder, SystemPromptError, TOOL_ORDER_REST, ToolOrderPolicy } from '../src/index.ts'
import { names, provide, setup, tool } from './setup.ts'

const shapeError = (list: string[]) => {
  try {
    new ToolOrderPolicy(list)
  } catch (error) {
    return error as SystemPromptError
  }
  throw new Error('no error')
}

describe('prefix groups in toolOrder', () => {
  it('places every tool of a group at the group, in code-unit order, and the rest at the rest entry', async () => {
    const ctx = await setup({ toolOrder: ['mcp__fs__*', TOOL_ORDER_REST, 'mcp__github__*'] })
    await provide(ctx, 'github', [tool('mcp__github__search'), tool('mcp__github__issue')])
    await provide(ctx, 'core', [tool('read'), tool('Bash')])
    await provide(ctx, 'fs', [tool('mcp__fs__write'), tool('mcp__fs__list')])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual([
      'mcp__fs__list', 'mcp__fs__write', 'Bash', 'read', 'mcp__github__issue', 'mcp__github__search',
    ])
  })

  it('lets an exact name beat a group, and the longest matching prefix beat a shorter one', () => {
    const list = ['mcp__github__*', 'mcp__github__issue_*', 'mcp__github__search', TOOL_ORDER_REST]
    const tools = ['mcp__github__search', 'mcp__github__issue_read', 'mcp__github__pr', 'mcp__github__issue_close', 'x'].map((name) => tool(name))
    expect(names(canonicalToolOrder(tools, list))).toEqual([
      'mcp__github__pr', 'mcp__github__issue_close', 'mcp__github__issue_read', 'mcp__github__search', 'x',
    ])
    const policy = new ToolOrderPolicy(list)
    expect(policy.placementOf('mcp__github__search')).toEqual({ kind: 'listed', entry: 'mcp__github__search', index: 2 })
    expect(policy.placementOf('mcp__github__issue_read')).toEqual({ kind: 'group', entry: 'mcp__github__issue_*', index: 1 })
    expect(policy.placementOf('mcp__github__pr')).toEqual({ kind: 'group', entry: 'mcp__github__*', index: 0 })
    expect(policy.placementOf('mcp__gitlab__pr')).toEqual({ kind: 'rest', entry: TOOL_ORDER_REST, index: 3 })
  })

  it('treats a group prefix that equals a whole tool name as matching it', () => {
    expect(names(canonicalToolOrder([tool('b'), tool('ab'), tool('a')], [TOOL_ORDER_REST, 'a*']))).toEqual(['b', 'a', 'ab'])
  })

  it('rejects at construction a "*" anywhere but at the end, a bare "*", and the same group twice', async () => {
    for (const entry of ['mcp__*__read', '*mcp', 'a**']) {
      const error = shapeError([entry, TOOL_ORDER_REST])
      expect(error.code).toBe('INVALID_TOOL_ORDER')
      expect(error.message).toBe(`toolOrder[0] is ${JSON.stringify(entry)}: "*" may only end an entry, as in "mcp__github__*" (a prefix group); valid entries are tool names, prefix groups and "<unlisted-tools>"`)
    }
    expect(shapeError(['*', TOOL_ORDER_REST]).message).toContain('bare "*"')
    expect(shapeError(['mcp__a__*', TOOL_ORDER_REST, 'mcp__a__*']).message).toBe('toolOrder lists group "mcp__a__*" twice')
    await expect(setup({ toolOrder: ['x*y', TOOL_ORDER_REST] })).rejects.toThrow('"*" may only end an entry')
  })

  it('fails every assemble() while a group matches no known tool, naming the group and the known tools', async () => {
    const ctx = await setup({ toolOrder: ['mcp__githib__*', 'nope', TOOL_ORDER_REST] })
    await provide(ctx, 'gh', [tool('mcp__github__search')])
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await ctx.systemPrompt.assemble().catch((error) => error)
      expect(error).toBeInstanceOf(SystemPromptError)
      expect(error.code).toBe('UNKNOWN_TOOL_ORDER_NAME')
      expect(error.message).toBe('toolOrder lists unregistered tool "nope" and group "mcp__githib__*" that matches no registered tool; known tools: mcp__github__search')
    }
  })

  it('counts a group as matching when its only tools are hidden, or taken by a longer group', async () => {
    const ctx = await setup({ toolOrder: ['a__*', 'a__b*', TOOL_ORDER_REST] })
    await provide(ctx, 'p', [tool('a__b1')], ['a__b1'])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['a__b1'])
    const hidden = await setup({ toolOrder: ['h__*', TOOL_ORDER_REST] })
    await provide(hidden, 'p', [tool('shown')], ['shown', 'h__later'])
    expect(names((await hidden.systemPrompt.assemble()).tools)).toEqual(['shown'])
  })
})

const nameArb = fc.stringMatching(/^[ab_]{1,5}$/)

describe('groups: property', () => {
  it('any registration order of any tool set gives the same result, matching a brute-force reading of the rules', () => {
    fc.assert(fc.property(
      fc.uniqueArray(nameArb, { minLength: 1, maxLength: 12 }),
      fc.uniqueArray(fc.oneof(nameArb, nameArb.map((name) => `${name}*`)), { maxLength: 5 }),
      fc.nat(5),
      fc.infiniteStream(fc.nat()),
      (toolNames, entries, restAt, randoms) => {
        const list = [...entries]
        list.splice(Math.min(restAt, list.length), 0, TOOL_ORDER_REST)
        // only entries that match something, so assembly succeeds
        const known = toolNames.filter(Boolean)
        const policyList = list.filter((entry) => entry === TOOL_ORDER_REST
          || (entry.endsWith('*') ? known.some((name) => name.startsWith(entry.slice(0, -1))) : known.includes(entry)))
        const tools = known.map((name) => tool(name))
        const shuffled = [...tools]
        for (let index = shuffled.length - 1; index > 0; index--) {
          const other = randoms.next().value % (index + 1)
          ;[shuffled[index], shuffled[other]] = [shuffled[other]!, shuffled[index]!]
        }
        const once = names(canonicalToolOrder(tools, policyList))
        expect(names(canonicalToolOrder(shuffled, policyList))).toEqual(once)
        // brute force: each tool's slot by the stated rules, then code units within a slot
        const slot = (name: string) => {
          const exact = policyList.indexOf(name)
          if (exact >= 0) return exact
          let best = -1
          let length = -1
          policyList.forEach((entry, index) => {
            if (entry !== TOOL_ORDER_REST && entry.endsWith('*') && name.startsWith(entry.slice(0, -1)) && entry.length > length) {
              best = index
              length = entry.length
            }
          })
          return best >= 0 ? best : policyList.indexOf(TOOL_ORDER_REST)
        }
        const expected = [...known].sort((a, b) => slot(a) - slot(b) || (a < b ? -1 : a > b ? 1 : 0))
        expect(once).toEqual(expected)
      },
    ), { numRuns: 300, seed: 15 })
  })
})
