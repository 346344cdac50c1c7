import { afterEach, describe, expect, it, vi } from 'vitest'
import { appFolder, appYaml, drive, messageText, openSession, prompt, rejection, until, type Driven } from './harness.ts'

const LIMIT = 32 * 1024 * 1024
const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

// The prompts here reach the model: its window must hold ~8.4 million estimated tokens (32 MiB at ~4 characters
// a token), or the loop refuses them before they are sent (the default scripted window is 128,000).
const WIDE_MODEL = '- { id: wide, name: dsh-llm-scripted, config: { models: [{ id: scripted-wide, contextWindow: 10000000 }] } }'

async function started(): Promise<{ agent: Driven; sessionId: string }> {
  const { file } = await appFolder(appYaml(['model: scripted-wide'], WIDE_MODEL))
  const agent = drive([file], { env: { DSH_LOG_LEVEL: 'warn' } })
  running.push(agent)
  return { agent, sessionId: await openSession(agent) }
}

const refusals = (stderr: string) => stderr.split('\n').filter((line) => line.includes('refused a message'))

describe('ACP messages over the line limit (32 MiB)', () => {
  it('a 40 MB session/prompt is answered with a JSON-RPC error naming the size and the limit; the connection goes on', async () => {
    const { agent, sessionId } = await started()
    const error = await rejection(prompt(agent, sessionId, 'x'.repeat(40_000_000)))
    expect(error.code).toBe(-32600)
    expect(error.message).toMatch(new RegExp(`message too large \\(\\d{8} bytes; the limit is ${LIMIT} bytes per message, a prompt included\\)`))
    const logged = await until(() => refusals(agent.stderr())[0], 'the warning')
    expect(logged).toMatch(new RegExp(`^\\[warn\\] acp: refused a message of \\d{8} bytes \\(session/prompt\\), over the limit of ${LIMIT} bytes per message; answered request \\d+ with an error$`))
    expect((await prompt(agent, sessionId, 'still here')).stopReason).toBe('end_turn')
    expect(messageText(agent.updates, sessionId)).toBe('echo: still here')
    expect(refusals(agent.stderr())).toHaveLength(1)
    expect(await agent.stop()).toBe(0)
  })

  it('a 50 MB junk line gets one warning line and a parse error with id null; the next request is served', async () => {
    const { agent, sessionId } = await started()
    const before = agent.stdout().length
    // the test's client also receives the parse error, to a request it never sent, and says so on stderr
    vi.spyOn(console, 'error').mockImplementation(() => {})
    agent.writeRaw(`${'junk '.repeat(10_000_000)}\n`)
    const logged = await until(() => refusals(agent.stderr())[0], 'the warning', 20_000)
    expect(logged).toBe(`[warn] acp: refused a message of 50000000 bytes, over the limit of ${LIMIT} bytes per message; it has no readable id, so it was answered with a parse error (id null)`)
    expect((await prompt(agent, sessionId, 'after the junk')).stopReason).toBe('end_turn')
    expect(messageText(agent.updates, sessionId)).toBe('echo: after the junk')
    // only JSON-RPC went to stdout, the parse error among it
    const lines = agent.stdout().slice(before).split('\n').filter(Boolean).map((line) => JSON.parse(line))
    for (const line of lines) expect(line).toMatchObject({ jsonrpc: '2.0' })
    expect(lines.filter((line) => line.error?.code === -32700)).toEqual([{
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: `Parse error: message too large (50000000 bytes; the limit is ${LIMIT} bytes per message), not parsed`, data: { bytes: 50_000_000, maxMessageBytes: LIMIT } },
    }])
    expect(await agent.stop()).toBe(0)
  })

  it('a 40 MB notification (a method, no id) gets one warning line and no answer, as JSON-RPC wants for notifications', async () => {
    const { agent, sessionId } = await started()
    const before = agent.stdout().length
    agent.writeRaw(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"${sessionId}","pad":"${'p'.repeat(40_000_000)}"}}\n`)
    const logged = await until(() => refusals(agent.stderr())[0], 'the warning', 20_000)
    expect(logged).toMatch(new RegExp(`^\\[warn\\] acp: refused a message of \\d{8} bytes \\(session/cancel\\), over the limit of ${LIMIT} bytes per message; a notification \\(no readable id\\), so nothing was answered$`))
    expect((await prompt(agent, sessionId, 'after it')).stopReason).toBe('end_turn')
    expect(agent.stdout().slice(before).split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((line) => line.error)).toEqual([])
    expect(await agent.stop()).toBe(0)
  })

  it('a message just under the limit still passes to the SDK whole', async () => {
    const { agent, sessionId } = await started()
    const text = 'y'.repeat(LIMIT - 1000)
    expect((await prompt(agent, sessionId, text)).stopReason).toBe('end_turn')
    expect(messageText(agent.updates, sessionId)).toBe(`echo: ${text}`)
    expect(refusals(agent.stderr())).toEqual([])
  }, 120_000)
})
