/** The languages tool-change notices are written in. */
export type NoticeLocale = 'en' | 'zh'

/**
 * The locale of the user's environment for notices: Chinese when the first of `LC_ALL`, `LC_MESSAGES`,
 * `LANG` that is set starts with `zh`, English otherwise.
 */
export function noticeLocale(env: Record<string, string | undefined> = process.env): NoticeLocale {
  const value = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((item) => item)
  return value?.toLowerCase().startsWith('zh') ? 'zh' : 'en'
}

/**
 * The context notice a user sees for one `developer/message` from the tool registry: a single change names
 * the tool; several give the count and the names (added ones with `+`, removed ones with `-`).
 */
export function toolChangeNotice(change: { added: readonly string[]; removed: readonly string[] }, locale: NoticeLocale = 'en'): string {
  const { added, removed } = change
  const count = added.length + removed.length
  if (count === 1) {
    if (added.length) return locale === 'zh' ? `新增工具：${added[0]}` : `Tool added: ${added[0]}`
    return locale === 'zh' ? `已移除工具：${removed[0]}` : `Tool removed: ${removed[0]}`
  }
  const names = [...added.map((name) => `+${name}`), ...removed.map((name) => `-${name}`)]
  return locale === 'zh' ? `工具变更（${count} 个）：${names.join('、')}` : `${count} tools changed: ${names.join(', ')}`
}
