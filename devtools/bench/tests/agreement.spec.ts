import { afterEach, describe, expect, it } from 'vitest'
import { AGREEMENT_STEPS, startAgreement, type AgreementProcess } from '../src/cache/agreement.ts'

const runs: AgreementProcess[] = []
afterEach(async () => { for (const run of runs.splice(0)) await run.close() })

async function started() {
  const run = await startAgreement()
  runs.push(run)
  return run
}

/** The `diagnostics` field of each Messages body the emulator received. */
const sentDiagnostics = (run: AgreementProcess) => run.emulator.received.map((entry) => JSON.parse(entry.body).diagnostics)

describe('the provider\'s cache verdict beside DSH\'s (Anthropic cache diagnostics, loopback emulator)', () => {
  it('sends previous_message_id null first, then the previous response id, and logs each verdict with the request it answers', async () => {
    const run = await started()
    await run.play({ text: 'hello' })
    await run.play({ text: 'go on' })
    expect(sentDiagnostics(run)).toEqual([{ previous_message_id: null }, { previous_message_id: 'msg_emu_0001' }])
    const verdicts = run.agent.session.events().filter((event) => event.type === 'provider/verdict').map((event) => event.data)
    expect(verdicts).toEqual([{ turn: 1, step: 1, responseId: 'msg_emu_0001' }, { turn: 2, step: 1, responseId: 'msg_emu_0002', previousResponseId: 'msg_emu_0001' }])
    const types = run.agent.session.events().map((event) => event.type)
    expect(types[types.indexOf('provider/verdict') - 1]).toBe('assistant/message')
    expect(run.emulator.problems).toEqual([])
  })

  it('joins both views on each break: the model switch and the persona edit agree, the eviction is the provider\'s alone', async () => {
    const run = await started()
    for (const step of AGREEMENT_STEPS) await run.play(step)
    expect(run.emulator.problems).toEqual([])
    expect(run.breaks.map(({ turn, reason, provider, agreement }) => ({ turn, reason, provider: provider?.reason, agreement }))).toEqual([
      { turn: 3, reason: 'model_changed', provider: 'model_changed', agreement: 'agree' },
      { turn: 5, reason: 'system_changed', provider: 'system_changed', agreement: 'agree' },
      { turn: 7, reason: 'provider_miss', provider: 'previous_message_not_found', agreement: 'provider-only' },
    ])
    const persona = run.breaks[1]!
    expect(persona).toMatchObject({ section: 'deployment:persona' })
    // the edit is at the persona's end: what the provider says it missed is what followed it
    expect(persona.provider!.missedTokens).toBeGreaterThan(0)
    // the same break, as logged in the session beside the verdict it was joined with
    const logged = run.agent.session.events().filter((event) => event.type === 'prompt-cache/break').map((event) => event.data)
    expect(logged).toEqual(run.breaks)
    expect(run.warnings).toHaveLength(1)
    expect(run.warnings[0]).toContain('only the provider names a cause')
    expect(run.warnings[0]).toContain('the provider says previous_message_not_found')
  })

  it('records a reason DSH does not know as it came, and a disagreement is a warning with both sides', async () => {
    const run = await started()
    await run.play({ text: 'hello' })
    await run.play({ text: 'go on' })
    run.emulator.forceDiagnostics({ cache_miss_reason: { type: 'speed_changed', cache_missed_input_tokens: 1234 } })
    await run.play({ text: 'after the persona edit', before: 'edit-persona' })
    const verdict = run.agent.session.events().filter((event) => event.type === 'provider/verdict').at(-1)!.data
    expect(verdict).toMatchObject({ turn: 3, step: 1, reason: 'speed_changed', missedTokens: 1234 })
    expect(run.breaks).toHaveLength(1)
    expect(run.breaks[0]).toMatchObject({ reason: 'system_changed', provider: { reason: 'speed_changed', missedTokens: 1234 }, agreement: 'disagree' })
    expect(run.warnings).toEqual([expect.stringContaining('DSH and the provider disagree: DSH says system_changed')])
    expect(run.warnings[0]).toContain('(section deployment:persona, byte ')
    expect(run.warnings[0]).toContain('the provider says speed_changed (unknown provider reason), 1234 tokens missed')
  })

  it('starts a new sequence after a compaction: the next request names no previous response', async () => {
    const run = await started()
    await run.play({ text: 'hello' })
    expect(await run.agent.compact()).toMatchObject({ ok: true })
    await run.play({ text: 'go on' })
    // the compaction request carries no diagnostics at all; the step after it starts the sequence again
    expect(sentDiagnostics(run)).toEqual([{ previous_message_id: null }, undefined, { previous_message_id: null }])
  })
})
