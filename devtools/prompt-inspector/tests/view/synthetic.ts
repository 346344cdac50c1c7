import { writeFile } from 'node:fs/promises'

/**
 * Writes a long session in the log's own format: `requests` single-step turns, a tool list of `tools`
 * tools that gains one tool every `changeEvery` requests (a `change` header and its developer message),
 * usage on every response. Returns the path.
 */
export async function writeLongSession(path: string, options: { requests: number; tools: number; changeEvery: number }): Promise<void> {
  const lines: string[] = []
  let seq = 0
  let time = Date.parse('2026-12-01T09:00:00.000Z')
  const push = (type: string, data: object) => lines.push(JSON.stringify({ seq: ++seq, time: new Date(time).toISOString(), type, data }))
  const tool = (index: number) => ({
    name: `tool_${String(index).padStart(3, '0')}`,
    description: `Tool number ${index}: does one thing to the workspace and reports what it did.`,
    parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] },
  })
  let count = options.tools
  let cached = 0
  for (let request = 0; request < options.requests; request++) {
    const turn = request + 1
    const change = request > 0 && request % options.changeEvery === 0
    if (change) count++
    time += request % 97 === 0 ? 6 * 60_000 : 4_000
    push('turn/start', { turn })
    push('user/message', { turn, text: `question ${turn}` })
    push('step/start', { turn, step: 1 })
    if (request === 0 || change) {
      const header = { model: 'long-model', system: 'You are a careful assistant.\n\nAnswer briefly.', tools: Array.from({ length: count }, (_, index) => tool(index)) }
      push('request/header', { turn, step: 1, reason: request === 0 ? 'initial' : 'change', header })
      const headerSeq = seq
      if (change) push('developer/message', { turn, step: 1, source: 'tool-registry', added: [tool(count - 1).name], removed: [], headerSeq })
    }
    const input = 9000 + request * 3
    const read = change || request === 0 ? 0 : cached
    cached = input
    push('assistant/message', { turn, step: 1, text: `answer ${turn}`, toolCalls: [], usage: { inputTokens: input, outputTokens: 4, cacheReadTokens: read, cacheWriteTokens: input - read } })
    push('step/end', { turn, step: 1 })
    push('turn/end', { turn, reason: 'done' })
  }
  await writeFile(path, `${lines.join('\n')}\n`)
}
