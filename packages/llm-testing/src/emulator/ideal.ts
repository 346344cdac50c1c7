import type { RenderedPrompt } from './prompt.ts'

/** The wire formats the emulator speaks; `deepseek` is Chat Completions with tool-update blocks. */
export type Wire = 'chat-completions' | 'deepseek' | 'messages'

/**
 * Characters of `previous` that an ideal harness keeps as the prefix of the next request of the same
 * conversation — the ideal against which cached tokens are measured.
 *
 * The ideal harness only appends: the next prompt repeats the previous prompt byte for byte, so the
 * whole previous prompt is the ideal. The one change it cannot make by appending is a change of the
 * declared tool set on a wire whose tools must be declared up front and cannot be announced in
 * history (Chat Completions). There the best any harness can do is keep every surviving tool in place
 * and append the new ones after them: the ideal is the previous prompt up to its first tool that was
 * removed, or, when tools were only added, up to the end of its tool declarations. The Messages wire
 * announces additions and removals in history (`tool_addition` / `tool_removal`), so there a tool
 * change never shrinks the ideal; neither does DeepSeek's Chat Completions route, which takes the same
 * blocks in system-role messages.
 */
export function idealPrefixChars(previous: RenderedPrompt | undefined, current: RenderedPrompt, wire: Wire): number {
  if (!previous) return 0
  if (wire === 'chat-completions') {
    const now = new Set(current.declared)
    const removed = previous.tools.findIndex((tool) => !now.has(tool.name))
    if (removed >= 0) return removed === 0 ? 0 : previous.tools[removed - 1]!.end
    const before = new Set(previous.declared)
    if (current.declared.some((name) => !before.has(name))) return previous.tools.at(-1)?.end ?? 0
  }
  return previous.text.length
}

/** Names declared in `current` but not in `previous`, in `current`'s order. */
export function addedTools(previous: RenderedPrompt | undefined, current: RenderedPrompt): string[] {
  if (!previous) return []
  const before = new Set(previous.declared)
  return current.declared.filter((name) => !before.has(name))
}
