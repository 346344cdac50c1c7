import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { writeApp } from './setup.ts'
import { describeOnTerminal, openTerminal } from './terminal.ts'

// A model whose entry gives a price, its usage scripted; the detector entry logs request/cost, the REPL shows it.
const app = (price: string) => `
- id: app
  name: dsh-stdio-demo
  config: { persistenceRoot: ./sessions, model: priced-model }
- id: script
  name: dsh-llm-scripted
  config: { models: [{ id: priced-model${price} }], script: ./script.json }
- id: prompt-cache
  name: dsh-cache-break-detector
`

async function firstTurn(price: string) {
  const { file, dir } = await writeApp(app(price))
  await writeFile(join(dir, 'script.json'), JSON.stringify({ responses: [{ text: 'priced answer', usage: { inputTokens: 100_000, cacheReadTokens: 94_000, outputTokens: 200 } }] }))
  const terminal = openTerminal([file])
  await terminal.until('> ')
  terminal.type('what does it cost\r')
  const at = await terminal.until('priced answer')
  await terminal.until('> ', at)
  terminal.type('/exit\r')
  expect(await terminal.exited).toBe(0)
  return terminal.screen().slice(at)
}

describeOnTerminal('the REPL\'s money line', () => {
  it('shows what the turn cost, the cached share and what the cache saved, when the model has a price', { timeout: 30_000 }, async () => {
    // 6,000 uncached × $3 + 94,000 read × $0.30 + 200 out × $15 = $0.0492; with no cache $0.303: $0.25 saved
    const screen = await firstTurn(', price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }')
    expect(screen).toMatch(/^\r\n\x1b\[2m\$0\.0492 this turn · 94% cached · saved \$0\.25\x1b\[0m\r\n/)
  })

  it('shows tokens only for a model without a price, never a guessed number', { timeout: 30_000 }, async () => {
    const screen = await firstTurn('')
    expect(screen).toMatch(/^\r\n\x1b\[2m100,000 in · 94% cached · 200 out\x1b\[0m\r\n/)
    expect(screen).not.toContain('$')
  })

  it('prices the offline model\'s emulated figures only when its entry gives a price, and says they are emulated', { timeout: 30_000 }, async () => {
    const { file } = await writeApp(`
- id: app
  name: dsh-stdio-demo
  config: { persistenceRoot: ./sessions, model: priced-echo, scripted: false }
- id: offline
  name: dsh-llm-scripted
  config: { models: [{ id: priced-echo, price: { input: 3000, output: 15000, cacheRead: 300, cacheWrite: 3750 } }] }
- id: prompt-cache
  name: dsh-cache-break-detector
`)
    const terminal = openTerminal([file])
    await terminal.until('> ')
    terminal.type('hello\r')
    const at = await terminal.until('echo: hello')
    await terminal.until('> ', at)
    terminal.type('/exit\r')
    expect(await terminal.exited).toBe(0)
    expect(terminal.screen().slice(at)).toMatch(/^\r\n\x1b\[2m\$\d+\.\d{4} this turn · 0% cached \(emulated\) · (saved|writes cost) \$\d+\.\d+( more)?\x1b\[0m\r\n/)
  })
})
