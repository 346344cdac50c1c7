import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { noticeLocale, toolChangeNotice } from '../src/index.ts'

describe('tool-change notices', () => {
  it('names the one tool of a single change, in English and Chinese', () => {
    expect(toolChangeNotice({ added: ['read_file'], removed: [] })).toBe('Tool added: read_file')
    expect(toolChangeNotice({ added: [], removed: ['grep'] })).toBe('Tool removed: grep')
    expect(toolChangeNotice({ added: ['read_file'], removed: [] }, 'zh')).toBe('新增工具：read_file')
    expect(toolChangeNotice({ added: [], removed: ['grep'] }, 'zh')).toBe('已移除工具：grep')
  })

  it('gives the count and the names of several changes', () => {
    expect(toolChangeNotice({ added: ['a', 'b'], removed: ['c'] })).toBe('3 tools changed: +a, +b, -c')
    expect(toolChangeNotice({ added: ['a', 'b'], removed: ['c'] }, 'zh')).toBe('工具变更（3 个）：+a、+b、-c')
  })

  it('mentions every name, and the count of several, whatever the change', () => {
    const names = fc.uniqueArray(fc.stringMatching(/^[a-z_]{1,8}$/), { maxLength: 6 })
    fc.assert(fc.property(names, fc.nat(), (all, split) => {
      if (!all.length) return
      const cut = split % (all.length + 1)
      const change = { added: all.slice(0, cut), removed: all.slice(cut) }
      for (const locale of ['en', 'zh'] as const) {
        const text = toolChangeNotice(change, locale)
        for (const name of all) expect(text.split(name).length - 1).toBeGreaterThanOrEqual(1)
        if (all.length > 1) expect(text).toContain(String(all.length))
      }
    }))
  })

  it('picks Chinese from the first set locale variable only', () => {
    expect(noticeLocale({ LANG: 'zh_CN.UTF-8' })).toBe('zh')
    expect(noticeLocale({ LC_ALL: 'en_US.UTF-8', LANG: 'zh_CN.UTF-8' })).toBe('en')
    expect(noticeLocale({ LC_MESSAGES: 'zh_TW', LANG: 'en_US' })).toBe('zh')
    expect(noticeLocale({})).toBe('en')
  })
})
