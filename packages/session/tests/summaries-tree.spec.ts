import { describe, expect, it } from 'vitest'
import { summarizeSessions } from '../src/index.ts'
import { chatTurn, setup, tempDir } from './helpers.ts'

const pause = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('summarizeSessions: child sessions', () => {
  it('lists each child right under its parent in the order forked, grandchildren under their parent, with the fork link', async () => {
    const { sessions } = await setup({ persistenceRoot: await tempDir() })
    const fork = async (parent: string, n: number, mode: 'fork' | 'side', description: string) => {
      const child = await sessions.create(`${parent}~${n}`)
      child.append('fork/parent', { parent, mode, description, copied: 0 })
      chatTurn(child, 1)
      await child.flushed()
      await pause()
    }
    const older = await sessions.create('older')
    chatTurn(older, 1)
    await older.flushed()
    await pause()
    const root = await sessions.create('root')
    chatTurn(root, 1)
    await root.flushed()
    await pause()
    // forked out of order of their numbers' spelling: ~10 after ~2, and the newest child is still under its parent
    for (const n of [1, 2, 10]) await fork('root', n, n === 2 ? 'side' : 'fork', `task ${n}`)
    await fork('root~1', 1, 'fork', 'a grandchild')
    // a child whose parent is gone is listed as a session of its own
    await fork('gone', 1, 'fork', 'an orphan')

    const listed = await summarizeSessions(sessions)
    expect(listed.map((summary) => [summary.id, summary.parent?.id])).toEqual([
      ['gone~1', 'gone'],
      ['root', undefined],
      ['root~1', 'root'],
      ['root~1~1', 'root~1'],
      ['root~2', 'root'],
      ['root~10', 'root'],
      ['older', undefined],
    ])
    expect(listed.find((summary) => summary.id === 'root~2')!.parent).toEqual({ id: 'root', mode: 'side', description: 'task 2' })
  })
})
