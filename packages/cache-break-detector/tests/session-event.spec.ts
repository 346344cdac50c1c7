import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { SessionError } from 'dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import { setup } from './setup.ts'

type Spine = Awaited<ReturnType<typeof setup>>
const spines: Spine[] = []
afterEach(async () => { for (const spine of spines.splice(0)) await spine.dispose() })

const TIME = '2026-11-30T12:00:00.000Z'
const line = (seq: number, type: string, data: object) => JSON.stringify({ seq, time: TIME, type, data })

// A break as the detector logged it on 2026-11-30: reasons since renamed, no changedToolNames.
const EARLY_BREAK = {
  turn: 1, step: 1, reason: 'tools_added', previousCacheReadTokens: 7000, currentCacheReadTokens: 0, currentCacheWriteTokens: 7200,
  allReasons: ['tools_added', 'flags_changed'], addedTools: ['beta'], changedFlags: ['deferredTools'],
}

const BREAK = {
  turn: 2, step: 1, reason: 'tools_schema_changed' as const, previousCacheReadTokens: 7000, currentCacheReadTokens: 0,
  currentCacheWriteTokens: 7200, changedToolNames: ['beta'], allReasons: ['tools_schema_changed' as const], addedTools: ['beta'],
}

describe('the prompt-cache/break event schema', () => {
  it('loads a log the first detector wrote (old reasons, no changedToolNames)', async () => {
    const spine = await setup()
    spines.push(spine)
    await writeFile(join(spine.root, 'early.jsonl'), [line(1, 'turn/start', { turn: 1 }), line(2, 'prompt-cache/break', EARLY_BREAK)].join('\n') + '\n')
    const session = await spine.ctx.sessions.open('early')
    expect(session.events().map((event) => event.data)).toEqual([{ turn: 1 }, EARLY_BREAK])
  })

  it('accepts fields of other detector versions as JSON', async () => {
    const spine = await setup()
    spines.push(spine)
    const session = await spine.ctx.sessions.create('later')
    expect(session.append('prompt-cache/break', { ...BREAK, laterField: { hops: 2 } } as never).data).toMatchObject({ laterField: { hops: 2 } })
  })

  it('refuses a wrong-typed field at append and at load, naming the field, what is valid and what was there', async () => {
    const spine = await setup()
    spines.push(spine)
    const session = await spine.ctx.sessions.create('bad')
    const append = (data: object) => () => session.append('prompt-cache/break', data as never)
    expect(append({ ...BREAK, currentCacheReadTokens: '0' })).toThrow(new SessionError('INVALID_EVENT',
      'prompt-cache/break: field "currentCacheReadTokens" must be a non-negative integer, got "0"'))
    expect(append({ ...BREAK, changedToolNames: 'beta' })).toThrow('field "changedToolNames" must be an array of strings, got "beta"')
    expect(append({ ...BREAK, allReasons: [''] })).toThrow('field "allReasons[0]" must be a non-empty string, got ""')
    const { turn: _turn, ...noTurn } = BREAK
    expect(append(noTurn)).toThrow('field "turn" must be a non-negative integer, got undefined')
    expect(session.lastSeq).toBe(0)

    await writeFile(join(spine.root, 'broken.jsonl'), line(1, 'prompt-cache/break', { ...BREAK, offset: -3 }) + '\n')
    await expect(spine.ctx.sessions.open('broken')).rejects.toThrow('prompt-cache/break: field "offset" must be a non-negative integer, got -3')
  })
})
