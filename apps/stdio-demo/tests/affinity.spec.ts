import { afterEach, describe, expect, it } from 'vitest'
import { startEmulator } from 'dsh-llm-testing/emulator'
import { run, writeApp } from './setup.ts'

const emulators: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close()
})

const env = { LOCAL_TEST_KEY: 'sk-loopback', DSH_LOG_LEVEL: 'error' }

/** The app on an emulated llama.cpp server (`/llamacpp`), its model entry pinning requests by `affinity`. */
function localApp(origin: string, affinity: string): string {
  return [
    '- id: app',
    '  name: dsh-stdio-demo',
    '  config:',
    '    persistenceRoot: ./sessions',
    '    model: local-coder',
    `    persona: ${JSON.stringify('You are a careful assistant on a local engine. '.repeat(8))}`,
    '- id: local',
    '  name: dsh-llm-openai',
    '  config:',
    `    baseURL: ${origin}/llamacpp/v1`,
    '    apiKeyEnv: LOCAL_TEST_KEY',
    `    models: [{ id: local-coder, affinity: ${affinity} }]`,
    '',
  ].join('\n')
}

describe('affinity on a local engine, through the real bin', () => {
  it('every request of a session names the same llama.cpp slot, so its next request reads the prefix the slot holds', { timeout: 60_000 }, async () => {
    const emulator = await startEmulator(['local-coder'], { slots: 2 })
    emulators.push(emulator)
    const { file } = await writeApp(localApp(emulator.origin, '{ field: id_slot, slots: 2 }'))
    expect(await run([file], 'first question\nsecond question\n', { env })).toMatchObject({ code: 0, stdout: 'echo: first question\necho: second question\n' })
    const slots = emulator.received.map((request) => JSON.parse(request.body).id_slot)
    expect(slots).toHaveLength(2)
    expect([0, 1]).toContain(slots[0])
    expect(slots[1]).toBe(slots[0])
    expect(emulator.ledger[1]!.cachedTokens).toBeGreaterThan(emulator.ledger[0]!.promptTokens - 8)
    expect(emulator.problems).toEqual([])
  })

  it('a bad affinity stops the boot with one line naming the model, the value and what is valid', { timeout: 60_000 }, async () => {
    const { file } = await writeApp(localApp('http://127.0.0.1:9', '{ field: id_slot, slots: 1 }'))
    const exit = await run([file], 'never sent\n', { env })
    expect(exit.code).not.toBe(0)
    expect(exit.stdout).toBe('')
    const lines = exit.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/model "local-coder" has affinity \{"field":"id_slot","slots":1\}: slots must be the server's slot count, a whole number >= 2 \(with one slot a child evicts its parent: start llama-server with -np 2\)/)
  })
})
