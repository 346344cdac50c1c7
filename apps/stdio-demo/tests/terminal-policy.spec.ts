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
