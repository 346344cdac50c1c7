import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import { recordingAdapter, requestBytes, setup, toolPlugin } from './setup.ts'

const groups = [['read_file', 'Write'], ['grep', 'glob'], ['mcp__github__search', 'bash'], ['Edit', 'ask_user']]

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items]
  return items.flatMap((item, index) => permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]))
}

/** Loads the four tool plugins in `order`, each finishing after a delay that puts them in that order, then runs a turn. */
async function runWith(order: number[], toolOrder?: string[]) {
  const { adapter, calls } = recordingAdapter()
  const { ctx } = await setup({ adapter, loop: { model: 'recording' }, toolOrder })
  const delays = [0, 0, 0, 0]
  order.forEach((group, position) => { delays[group] = position * 3 })
  const registered: string[] = []
  ctx.on('tools/change', (change) => { if (change.action === 'register') registered.push(change.name) })
  await Promise.all(groups.map((tools, index) => ctx.plugin(toolPlugin(`tools-${index}`, tools, delays[index]))))
  const agent = await ctx.agentLoop.createAgent({ id: 'agent' })
  await agent.prompt('hello')
  return { header: JSON.stringify(agent.session.requestHeader()!.data.header), request: requestBytes(calls[0]), registered, names: calls[0].tools.map((t) => t.name) }
}

describe('all 24 load orders of four tool plugins', () => {
  it('log identical headers and dispatch identical requests in code-unit order', async () => {
    const runs = await Promise.all(permutations([0, 1, 2, 3]).map((order) => runWith(order)))
    expect(new Set(runs.map((run) => run.registered.join())).size).toBeGreaterThan(1)
    expect(new Set(runs.map((run) => run.header)).size).toBe(1)
    expect(new Set(runs.map((run) => run.request)).size).toBe(1)
    expect(runs[0].names).toEqual(['Edit', 'Write', 'ask_user', 'bash', 'glob', 'grep', 'mcp__github__search', 'read_file'])
  })

  it('honour a configured toolOrder in both the header and the request', async () => {
    const toolOrder = ['read_file', 'grep', TOOL_ORDER_REST, 'bash']
    const runs = await Promise.all(permutations([0, 1, 2, 3]).map((order) => runWith(order, toolOrder)))
    expect(new Set(runs.map((run) => run.header)).size).toBe(1)
    expect(new Set(runs.map((run) => run.request)).size).toBe(1)
    expect(runs[0].names).toEqual(['read_file', 'grep', 'Edit', 'Write', 'ask_user', 'glob', 'mcp__github__search', 'bash'])
  })
})
