import type { ChatMessage, ToolSchema, ToolHistorySnapshot, ToolHistoryUpdate } from 'dsh-core'

export function tool(name: string, version = 1): ToolSchema {
  return { name, description: `${name} v${version}`, parameters: { type: 'object', properties: { [`${name}Arg`]: { type: 'string' } } } }
}

/**
 * A tiny stand-in for the session fold: one request header per step (logged when it differs from the
 * previous one), a tool-registry developer message when names changed, a user message per step.
 * The whole log is one request sequence starting at the first header.
 */
export function simulate(steps: ToolSchema[][], startSeq = 1) {
  let seq = startSeq - 1
  const headers = new Map<number, ToolSchema[]>()
  const updates: ToolHistoryUpdate[] = []
  const messages: ChatMessage[] = []
  let previous: ToolSchema[] | undefined
  let sequenceStartSeq = 0
  steps.forEach((tools, index) => {
    messages.push({ role: 'user', text: `step ${index}` })
    if (!previous || JSON.stringify(previous) !== JSON.stringify(tools)) {
      const headerSeq = ++seq
      headers.set(headerSeq, tools)
      if (!previous) sequenceStartSeq = headerSeq
      else {
        const before = new Set(previous.map((t) => t.name))
        const after = new Set(tools.map((t) => t.name))
        const added = tools.map((t) => t.name).filter((name) => !before.has(name))
        const removed = previous.map((t) => t.name).filter((name) => !after.has(name))
        if (added.length || removed.length) {
          const update = { seq: ++seq, added, removed, headerSeq }
          updates.push(update)
          messages.push({ role: 'developer', source: 'tool-registry', added, removed, headerSeq })
        }
      }
    }
    messages.push({ role: 'assistant', text: `reply ${index}`, toolCalls: [] })
    previous = tools
  })
  const history: ToolHistorySnapshot = {
    sequenceStartSeq,
    declarations: steps[0],
    updates,
    resolve: (name, headerSeq) => headers.get(headerSeq)?.find((t) => t.name === name),
  }
  return { history, messages, tools: steps.at(-1)! }
}

