import { describe, expect, it } from 'vitest'
import { plugin, recordChanges, setup, tool } from './setup.ts'

describe('tools/change', () => {
  it('reports register, reveal, unreveal and unregister synchronously, in order', async () => {
    const ctx = await setup()
    const changes = recordChanges(ctx)
    const dispose = ctx.tools.register(tool('search', { shouldDefer: true }))
    expect(changes).toEqual([{ action: 'register', name: 'search' }])
    ctx.tools.reveal('search')
    ctx.tools.unreveal('search')
    await dispose()
    expect(changes).toEqual([
      { action: 'register', name: 'search' },
      { action: 'reveal', name: 'search' },
      { action: 'unreveal', name: 'search' },
      { action: 'unregister', name: 'search' },
    ])
  })

  it('reports unregister for each tool of a disposed plugin', async () => {
    const ctx = await setup()
    const fiber = await plugin(ctx, 'files', [tool('read'), tool('write')])
    const changes = recordChanges(ctx)
    await fiber.dispose()
    expect(changes.map((change) => `${change.action} ${change.name}`).sort()).toEqual(['unregister read', 'unregister write'])
  })

  it('stays quiet for a rejected registration and for a disposer run twice', async () => {
    const ctx = await setup()
    const dispose = ctx.tools.register(tool('read'))
    const changes = recordChanges(ctx)
    expect(() => ctx.tools.register(tool('read'))).toThrow()
    expect(() => ctx.tools.register(tool('bad name'))).toThrow()
    await dispose()
    await dispose()
    expect(changes).toEqual([{ action: 'unregister', name: 'read' }])
  })
})
