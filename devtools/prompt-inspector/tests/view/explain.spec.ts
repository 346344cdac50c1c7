import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildSessionView } from '../../src/view/build.ts'
import { loadSession } from '../../src/view/events.ts'
import { DEFAULT_PG_SCHEMA, DEFAULT_PG_URL_ENV } from '../../src/cli.ts'
import { tempDir } from '../setup.ts'

const PG = { urlEnv: DEFAULT_PG_URL_ENV, schema: DEFAULT_PG_SCHEMA }
const tool = (name: string) => ({ name, description: `The ${name} tool.`, parameters: { type: 'object', properties: {} } })
const usage = (input: number, read: number) => ({ inputTokens: input, outputTokens: 5, cacheReadTokens: read, cacheWriteTokens: input - read })

/**
 * A session in the log's own format: two turns with the editor's MCP servers (github, linear), then a resume
 * without them (a `resume` header, one developer message), then a model switch.
 */
async function writeResumedSession(): Promise<string> {
  const lines: string[] = []
  let seq = 0
  const push = (type: string, data: object) => lines.push(JSON.stringify({ seq: ++seq, time: new Date(Date.UTC(2026, 11, 1, 9, 0, seq)).toISOString(), type, data }))
  const withMcp = [tool('mcp__github__get_issue'), tool('mcp__github__list_prs'), tool('mcp__linear__find'), tool('read_file')]
  const header = (tools: object[], model = 'cache-model') => ({ model, system: 'You review code.', tools })
  const turn = (n: number, text: string, answer: string, reason: string | null, tools: object[], input: number, read: number, model?: string) => {
    push('turn/start', { turn: n })
    push('user/message', { turn: n, text })
    push('step/start', { turn: n, step: 1 })
    if (reason) push('request/header', { turn: n, step: 1, reason, header: header(tools, model) })
    if (reason === 'resume') push('developer/message', { turn: n, step: 1, source: 'tool-registry', added: [], removed: ['mcp__github__get_issue', 'mcp__github__list_prs', 'mcp__linear__find'], headerSeq: seq })
    push('assistant/message', { turn: n, step: 1, text: answer, toolCalls: [], usage: usage(input, read) })
    push('step/end', { turn: n, step: 1 })
    push('turn/end', { turn: n, reason: 'done' })
  }
  turn(1, 'find the flaky test', 'It is tests/io.spec.ts.\nIt races on the temp folder.', 'initial', withMcp, 3000, 0)
  turn(2, 'fix it\nplease', 'Done: one await added.', null, withMcp, 3200, 2900)
  turn(3, 'and the docs?', 'Updated.', 'resume', [tool('read_file')], 1500, 0)
  push('model/switch', { turn: 3, from: 'cache-model', to: 'big-model' })
  turn(4, 'check again', '', 'model', [tool('read_file')], 1600, 0, 'big-model')
  const file = join(await tempDir(), 'resumed.jsonl')
  await writeFile(file, `${lines.join('\n')}\n`)
  return file
}

describe('what the viewer says about breaks and turns', () => {
  it('counts header changes from the breaks the rows show: a resume and a model switch are header changes too', async () => {
    const view = buildSessionView(await loadSession(await writeResumedSession(), PG))
    expect(view.breaks.map((item) => [item.request + 1, item.label, item.headerChanged])).toEqual([
      [3, 'header change at resume', true],
      [4, 'model switch', true],
    ])
    expect(view.summary.headerChanges).toBe(view.breaks.filter((item) => item.headerChanged).length)
    expect(view.summary.headerChanges).toBe(2)
    expect(view.requests.map((request) => request.headerReason)).toEqual(['initial', null, 'resume', 'model'])
  })

  it('explains a break: a resume without the MCP servers the session had, a model switch', async () => {
    const view = buildSessionView(await loadSession(await writeResumedSession(), PG))
    expect(view.breaks.map((item) => item.explanation)).toEqual([
      'resumed without the MCP servers the session had (github, linear): 3 tools removed',
      'model switched from cache-model to big-model',
    ])
  })

  it('keeps the first line of each answer for its row, or the tools a response called', async () => {
    const view = buildSessionView(await loadSession(await writeResumedSession(), PG))
    expect(view.requests.map((request) => request.answer)).toEqual(['It is tests/io.spec.ts.', 'Done: one await added.', 'Updated.', ''])
    expect(view.prompts).toMatchObject({ 1: 'find the flaky test', 2: 'fix it\nplease' })
  })
})
