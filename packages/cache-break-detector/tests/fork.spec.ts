import { afterEach, describe, expect, it } from 'vitest'
import { readLog, setup, toolPlugin } from './setup.ts'

type Spine = Awaited<ReturnType<typeof setup>>
let spine: Spine | undefined
afterEach(async () => { await spine?.dispose(); spine = undefined })

/** A parent `p` on cache-a with tools alpha and gamma that answered one turn reading `read` cached tokens. */
async function parent(read: number) {
  spine = await setup()
  await spine.plug(toolPlugin('alpha'))
  await spine.plug(toolPlugin('gamma'))
  const agent = await spine.ctx.agentLoop.createAgent({ id: 'p' })
  spine.model.queue({ read })
  await agent.prompt('first')
  return { ...spine, agent }
}

describe('a child agent\'s first request', () => {
  it('on the parent\'s prefix is judged against the parent\'s last request: a kept read is no break, a lost one is an ordinary break', async () => {
    const s = await parent(9000)
    s.model.queue({ read: 9500 })
    await s.agent.fork({ mode: 'fork', instruction: 'go on', description: 'a fork' })
    expect(s.live).toEqual([])
    s.model.queue({ read: 0 })
    await s.agent.fork({ mode: 'fork', instruction: 'again', description: 'another fork' })
    expect(s.live.map(({ agent, info }) => [agent.id, info.reason, info.previousCacheReadTokens, info.forkParent])).toEqual([
      ['p~2', 'likely_provider_ttl_or_eviction', 9000, undefined],
    ])
  })

  it('on a fresh persona says fork_prefix_not_shared, with the change behind it, whatever the read', async () => {
    const s = await parent(0)
    s.model.queue({ read: 0 })
    await s.agent.fork({ mode: 'fresh', instruction: 'review', description: 'a reviewer', persona: 'You review.' })
    expect(s.live.map(({ agent, info }) => [agent.id, info.reason, info.allReasons, info.forkParent, info.forkMode])).toEqual([
      ['p~1', 'fork_prefix_not_shared', ['fork_prefix_not_shared', 'system_changed'], 'p', 'fresh'],
    ])
    expect((await readLog(s.root, 'p~1')).filter((event) => event.type === 'prompt-cache/break').map((event) => event.data))
      .toMatchObject([{ reason: 'fork_prefix_not_shared', section: 'deployment:persona' }])
  })

  it('with a tool subset names the tools it lacks', async () => {
    const s = await parent(9000)
    s.model.queue({ read: 0 })
    await s.agent.fork({ mode: 'fresh', instruction: 'only alpha', description: 'alpha only', tools: ['alpha'] })
    expect(s.live.map(({ info }) => [info.allReasons, info.removedTools])).toEqual([[['fork_prefix_not_shared', 'tools_schema_changed'], ['gamma']]])
  })

  it('on a parent whose model was switched since its last request says model_changed behind it', async () => {
    const s = await parent(9000)
    s.agent.switchModel('cache-b')
    s.model.queue({ read: 0 })
    await s.agent.fork({ mode: 'side', instruction: 'a side question', description: 'side' })
    expect(s.live.map(({ info }) => info.allReasons)).toEqual([['fork_prefix_not_shared', 'model_changed']])
  })
})
