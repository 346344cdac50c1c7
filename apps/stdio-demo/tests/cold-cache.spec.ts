import { expect, it } from 'vitest'
import { writeApp } from './setup.ts'
import { describeOnTerminal, openTerminal } from './terminal.ts'

/** The demo on the offline model with the prompt-cache detector told the route's cache lives `ttlMs`. */
const app = (ttlMs: number, extra = '') => writeApp(`
- id: app
  name: dsh-stdio-demo
  config: { persistenceRoot: ./sessions, welcome: Cold cache test. }
- id: prompt-cache
  name: dsh-cache-break-detector
  config: { ttlMs: ${ttlMs}${extra} }
`)

describeOnTerminal('the REPL says when the prompt cache has gone cold', () => {
  it('prints one line once the session sat idle past the TTL, and keeps the half-typed line', { timeout: 20_000 }, async () => {
    const { file } = await app(2000)
    const { screen, until, type, exited } = openTerminal([file], { LANG: 'en_US.UTF-8', LC_ALL: '', LC_MESSAGES: '' })
    let at = await until('> ')
    type('hello\r')
    at = await until('echo: hello', at)
    at = await until('> ', at)
    type('half')
    at = await until('half', at)
    const notice = await until("Prompt cache cold: idle ", at)
    at = await until('uncached)', notice)
    expect(screen().slice(notice).split('\n')[0]).toMatch(/^\d+(\.\d)? s, past scripted-echo's 2 s cache TTL; the next turn re-sends about \d+ tokens uncached\)/)
    // the prompt comes back with what was typed, and the line still works
    at = await until('> half', at)
    type(' typed\r')
    at = await until('echo: half typed', at)
    // one notice per idle period: none while nothing was sent since
    expect(screen().split('Prompt cache cold').length - 1).toBe(1)
    type('/exit\r')
    expect(await exited).toBe(0)
  })

  it('prints nothing with coldNotice: false', { timeout: 20_000 }, async () => {
    const { file } = await app(300, ', coldNotice: false')
    const { screen, until, type, exited } = openTerminal([file], { TERM: 'dumb' })
    await until('> ')
    type('hello\r')
    const at = await until('echo: hello')
    await until('> ', at)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(screen()).not.toContain('Prompt cache cold')
    type('/exit\r')
    expect(await exited).toBe(0)
  })
})
