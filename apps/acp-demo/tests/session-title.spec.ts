import { oneLine } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { sessionTitle } from '../src/session-list.ts'

describe('a session title', () => {
  it('is the first prompt under dsh-core\'s one oneLine rule: line breaks become one space, other spacing kept', () => {
    expect(sessionTitle('  fix the\n\n   pager  bug\tnow ')).toBe('fix the pager  bug\tnow')
    const long = `${'x'.repeat(78)}\u{1F600} and more`
    expect(sessionTitle(long)).toBe(oneLine(long, 80))
    // cut before the emoji rather than through it
    expect(sessionTitle(long)).toBe(`${'x'.repeat(78)}…`)
  })
})
