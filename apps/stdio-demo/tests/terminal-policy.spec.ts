import { describe, expect, it } from 'vitest'
import { terminalPolicy } from './terminal.ts'

describe('the terminal specs without script(1)', () => {
  it('run wherever script(1) is found', () => {
    expect(terminalPolicy(true, {})).toBe('run')
    expect(terminalPolicy(true, { CI: 'true' })).toBe('run')
  })

  it('fail under CI instead of skipping silently, and skip on a developer machine', () => {
    expect(['true', '1', 'yes'].map((CI) => terminalPolicy(false, { CI }))).toEqual(['fail', 'fail', 'fail'])
    expect([undefined, '', 'false', '0'].map((CI) => terminalPolicy(false, CI === undefined ? {} : { CI }))).toEqual(['skip', 'skip', 'skip', 'skip'])
  })
})

describe('every spec that opens a pseudo-terminal', () => {
  it('goes through describeOnTerminal, so none skips silently under CI', async () => {
    const { readdir, readFile } = await import('node:fs/promises')
    const folder = new URL('./', import.meta.url)
    const specs = (await readdir(folder)).filter((name) => name.endsWith('.spec.ts'))
    const silent: string[] = []
    for (const name of specs) {
      const text = await readFile(new URL(name, folder), 'utf8')
      if (text.includes('openTerminal(') && (/skipIf\(\s*!?hasScript/.test(text) || !text.includes('describeOnTerminal('))) silent.push(name)
    }
    expect(silent).toEqual([])
  })
})
