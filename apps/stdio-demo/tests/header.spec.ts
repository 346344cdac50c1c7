import { describe, expect, it } from 'vitest'
import { App, appYaml, headers, sessionEvents, writeApp } from './setup.ts'

const NAMES = ['write_note', 'read_file', 'list_dir', 'get_time']
// the harness's agent tool is in every prefix by default (agentTool: false leaves it out)
const CANONICAL = ['agent', 'get_time', 'list_dir', 'read_file', 'write_note']

/** Runs one `hello` turn once all tools are in; returns the session's request/header event data. */
async function headerOf(tools: { name: string; delayMs: number }[], app: Record<string, unknown> = {}) {
  const { file, sessions } = await writeApp(appYaml({ persona: 'Be brief.', ...app }, tools))
  const running = new App([file])
  await running.waitForTools(tools.length + 1)
  running.send('hello')
  const exit = await running.finish()
  expect(exit).toMatchObject({ code: 0, stdout: expect.stringMatching(/echo: hello\n$/) })
  return headers(await sessionEvents(sessions))
}

const names = (data: any) => data.header.tools.map((tool: { name: string }) => tool.name)

describe('the logged request header', () => {
  it('lists the tools in canonical order, not in registration order', async () => {
    // registered last-to-first: write_note at 0 ms … get_time at 60 ms
    const logged = await headerOf(NAMES.map((name, index) => ({ name, delayMs: index * 20 })))
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ turn: 1, step: 1, reason: 'initial' })
    expect(names(logged[0])).toEqual(CANONICAL)
  })

  it('is byte-identical across five runs with different registration races', { timeout: 90_000 }, async () => {
    // each run: one plugin entry per tool, entries in another order, delays in another order
    const races = [
      [0, 10, 20, 30], [30, 20, 10, 0], [20, 0, 30, 10], [10, 30, 0, 20], [0, 0, 0, 0],
    ].map((delays, run) => {
      const tools = NAMES.map((name, index) => ({ name, delayMs: delays[index] }))
      return run % 2 ? tools.reverse() : tools
    })
    const runs = await Promise.all(races.map((tools) => headerOf(tools)))
    for (const logged of runs) {
      expect(logged).toHaveLength(1)
      expect(JSON.stringify(logged[0])).toBe(JSON.stringify(runs[0][0]))
    }
    expect(names(runs[0][0])).toEqual(CANONICAL)
  })

  it('honours toolOrder from the YAML', async () => {
    const toolOrder = ['write_note', '<unlisted-tools>', 'get_time']
    const logged = await headerOf(NAMES.map((name) => ({ name, delayMs: 0 })), { toolOrder })
    expect(names(logged[0])).toEqual(['write_note', 'agent', 'list_dir', 'read_file', 'get_time'])
  })
})
