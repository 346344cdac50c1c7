import { afterEach, describe, expect, it } from 'vitest'
import { appFolder, drive, openSession, prompt, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

// A model with a price and a context window, its usage scripted; the detector entry logs request/cost.
const yaml = (price: string) => [
  '- { id: app, name: dsh-acp-demo, config: { persistenceRoot: ./sessions, model: priced-model } }',
  `- { id: script, name: dsh-llm-scripted, config: { models: [{ id: priced-model, contextWindow: 200000${price} }], script: ./script.json } }`,
  '- { id: prompt-cache, name: dsh-cache-break-detector }',
].join('\n') + '\n'
const SCRIPT = JSON.stringify({ responses: [
  { text: 'first', usage: { inputTokens: 100_000, cacheReadTokens: 0, cacheWriteTokens: 90_000, outputTokens: 200 } },
  { text: 'second', usage: { inputTokens: 101_000, cacheReadTokens: 94_000, cacheWriteTokens: 1000, outputTokens: 300 } },
] })
const PRICE = ', price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }'

async function twoTurns(price: string) {
  const { file } = await appFolder(yaml(price), { 'script.json': SCRIPT })
  const agent = drive([file])
  running.push(agent)
  const sessionId = await openSession(agent)
  const responses = [await prompt(agent, sessionId, 'one'), await prompt(agent, sessionId, 'two')]
  const usage = agent.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'usage_update').map((n) => n.update)
  return { responses, usage, stdout: agent.stdout() }
}

describe('usage over ACP', () => {
  it('sends a usage_update after each turn: the tokens in context, the window and the session\'s cumulative cost in USD', { timeout: 30_000 }, async () => {
    const { usage } = await twoTurns(PRICE)
    const first = (10_000 * 3 + 90_000 * 3.75 + 200 * 15) / 1e6
    const second = (6000 * 3 + 94_000 * 0.3 + 1000 * 3.75 + 300 * 15) / 1e6
    expect(usage).toEqual([
      { sessionUpdate: 'usage_update', used: 100_200, size: 200_000, cost: { amount: expect.closeTo(first, 12), currency: 'USD' } },
      { sessionUpdate: 'usage_update', used: 101_300, size: 200_000, cost: { amount: expect.closeTo(first + second, 12), currency: 'USD' } },
    ])
  })

  it('answers each prompt with the turn\'s tokens, cached reads and writes included', { timeout: 30_000 }, async () => {
    const { stdout } = await twoTurns(PRICE)
    const answers = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((message) => message.result?.stopReason)
    expect(answers.map((message) => message.result)).toEqual([
      { stopReason: 'end_turn', usage: { totalTokens: 100_200, inputTokens: 100_000, outputTokens: 200, cachedReadTokens: 0, cachedWriteTokens: 90_000 } },
      { stopReason: 'end_turn', usage: { totalTokens: 101_300, inputTokens: 101_000, outputTokens: 300, cachedReadTokens: 94_000, cachedWriteTokens: 1000 } },
    ])
  })

  it('sends no cost for a model without a price: the context figures only', { timeout: 30_000 }, async () => {
    const { usage } = await twoTurns('')
    expect(usage).toEqual([
      { sessionUpdate: 'usage_update', used: 100_200, size: 200_000 },
      { sessionUpdate: 'usage_update', used: 101_300, size: 200_000 },
    ])
  })
})
