import { SUMMARY_PREFIX } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { Session } from '../src/index.ts'
import { chatTurn, header, registryUpdate, setup, tempDir, tool } from './helpers.ts'

const compaction = (throughSeq: number, summary = 'the user asked twice; read returned contents') =>
  ({ turn: 2, step: 0, reason: 'manual' as const, summary, throughSeq })

describe('context/compaction', () => {
  it('replaces the history through throughSeq with the summary and keeps what came after', () => {
    const session = new Session('s')
    header(session, [tool('read')], 'initial')
    chatTurn(session, 1)
    const cut = session.lastSeq
    session.append('user/message', { turn: 2, text: 'after the cut' })
    session.append('context/compaction', compaction(cut))
    session.append('user/message', { turn: 3, text: 'later' })
    expect(session.messages().toArray()).toEqual([
      { role: 'user', text: `${SUMMARY_PREFIX}the user asked twice; read returned contents` },
      { role: 'user', text: 'after the cut' },
      { role: 'user', text: 'later' },
    ])
  })

  it('keeps tool-registry messages of the compacted range ahead of the summary, and the tool history unchanged', () => {
    const session = new Session('s')
    header(session, [tool('read')], 'initial')
    chatTurn(session, 1)
    const h2 = header(session, [tool('grep'), tool('read')])
    registryUpdate(session, h2, ['grep'], [])
    chatTurn(session, 2)
    const history = session.toolHistory()
    session.append('context/compaction', compaction(session.lastSeq))
    expect([...session.messages()].map((message) => message.role)).toEqual(['developer', 'user'])
    expect(session.toolHistory()).toEqual(history)
  })

  it('compacts an earlier summary like any message, so a second compaction replaces it', () => {
    const session = new Session('s')
    chatTurn(session, 1)
    session.append('context/compaction', compaction(session.lastSeq, 'first'))
    chatTurn(session, 2)
    session.append('context/compaction', compaction(session.lastSeq, 'second'))
    expect(session.messages().toArray()).toEqual([{ role: 'user', text: `${SUMMARY_PREFIX}second` }])
  })

  it.each([
    [{ summary: '' }, /field "summary" must be a string with visible text, got ""/],
    [{ summary: '  \n' }, /field "summary" must be a string with visible text/],
    [{ reason: 'later' }, /field "reason" must be one of "auto", "manual", got "later"/],
    [{ throughSeq: 0 }, /field "throughSeq" must be a positive integer/],
    [{ usage: { inputTokens: -1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } }, /field "usage.inputTokens"/],
    [{ extra: true }, /unknown field; valid fields: turn, step, reason, summary, throughSeq, usage/],
  ])('refuses %j', (change, message) => {
    const session = new Session('s')
    chatTurn(session, 1)
    expect(() => session.append('context/compaction', { ...compaction(2), ...change } as never)).toThrow(message)
    expect(session.lastSeq).toBe(9)
  })

  it('refuses a cut past the log or back into an earlier compaction', () => {
    const session = new Session('s')
    chatTurn(session, 1)
    expect(() => session.append('context/compaction', compaction(10))).toThrow(/must be a logged seq after the last compaction \(1\.\.9\), got 10/)
    const first = session.append('context/compaction', compaction(5)).seq
    expect(() => session.append('context/compaction', compaction(first))).toThrow(/\(11\.\.10\), got 10/)
  })

  it('reloads to the same messages', async () => {
    const { sessions } = await setup({ persistenceRoot: await tempDir() })
    const session = await sessions.openOrCreate('compacted')
    chatTurn(session, 1)
    session.append('context/compaction', {
      ...compaction(session.lastSeq), usage: { inputTokens: 40, outputTokens: 9, cacheReadTokens: 32, cacheWriteTokens: 0 },
    })
    chatTurn(session, 2)
    const before = session.messages().toArray()
    await sessions.close('compacted')
    const reloaded = await sessions.open('compacted')
    expect(reloaded.messages().toArray()).toEqual(before)
  })
})
