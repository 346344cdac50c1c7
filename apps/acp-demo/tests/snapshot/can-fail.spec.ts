import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REFRESH_COMMAND, report } from './diff.ts'
import { reconstructionProblems } from './reconstruction.ts'
import { compareFixture, replay, replayRun, snapshotMode } from './replay.ts'
import { SCENARIOS_ROOT, loadScenario, runScenario } from './scenario.ts'

/** A temp copy of a scenario (same folder name, so text-turn stays the pinned one) with its app file edited. */
async function edited(name: string, edit: (yaml: string) => string) {
  const dir = join(await mkdtemp(join(tmpdir(), 'dsh-can-fail-')), name)
  await cp(join(SCENARIOS_ROOT, name), dir, { recursive: true })
  const file = join(dir, 'cordis.yml')
  const yaml = await readFile(file, 'utf8')
  const changed = edit(yaml)
  if (changed === yaml) throw new Error(`the edit left ${name}/cordis.yml unchanged`)
  await writeFile(file, changed)
  const scenario = await loadScenario(dir)
  return { scenario, differences: await compareFixture(scenario, await replay(scenario)) }
}

// refresh and record rewrite the fixtures this file copies; it runs with the replay
const rewriting = snapshotMode(process.env.DSH_SNAPSHOT) !== 'replay'

describe.skipIf(rewriting)('the snapshot comparison', () => {
  it.concurrent('reports a persona edit in text-turn as a difference in the pinned system prompt, not the tool list', async () => {
    const { differences } = await edited('text-turn', (yaml) => yaml.replace('Prefer short answers.', 'Prefer long answers.'))
    const files = differences.map((difference) => difference.file)
    expect(files.some((file) => file.endsWith('text-turn/system-prompt.expected.md'))).toBe(true)
    expect(files.some((file) => file.endsWith('tool-schemas.expected.json'))).toBe(false)
    const message = report('text-turn', differences)
    expect(message).toMatch(/^snapshot "text-turn" differs from its fixture in .*system-prompt\.expected\.md/)
    expect(message).toContain('- You are a terse demo assistant inside an editor. Prefer short answers.')
    expect(message).toContain('+ You are a terse demo assistant inside an editor. Prefer long answers.')
    expect(message).toContain(REFRESH_COMMAND)
  }, 60_000)

  it.concurrent('reports a toolOrder edit in text-turn as a difference in the pinned tool list, not the system prompt', async () => {
    const { differences } = await edited('text-turn', (yaml) => yaml.replace("toolOrder: [read_file, '<unlisted-tools>', web_search]", "toolOrder: [web_search, '<unlisted-tools>', read_file]"))
    const files = differences.map((difference) => difference.file)
    expect(files[0]).toMatch(/text-turn\/tool-schemas\.expected\.json$/)
    expect(files.some((file) => file.endsWith('system-prompt.expected.md'))).toBe(false)
    expect(differences[0].diff).toMatch(/^- {5}"name": "read_file",$/m)
    expect(differences[0].diff).toMatch(/^\+ {5}"name": "web_search",$/m)
  }, 60_000)

  it.concurrent('does not churn an unpinned fixture on a persona edit, yet reports a changed tool result there', async () => {
    const { differences } = await edited('tool-call', (yaml) => yaml
      .replace('You are a terse demo assistant inside an editor.', 'You are a chatty assistant.')
      .replace('An agent harness.', 'A harness for agents.'))
    expect(differences.map((difference) => difference.file.replace(/^.*\//, ''))).toEqual(['session.jsonl', 'stdout.expected.jsonl'])
    for (const { diff } of differences) {
      expect(diff).toContain('A harness for agents.')
      expect(diff).not.toContain('chatty')
    }
  }, 60_000)

  it.concurrent('reports a request the log cannot rebuild: a header that left out deferredTools', async () => {
    const { run } = await replayRun(await loadScenario(join(SCENARIOS_ROOT, 'deferred-tool')))
    expect(run.requests.map((request) => request.deferredTools)).toEqual([['web_search'], ['web_search'], ['web_search']])
    expect(reconstructionProblems(run)).toEqual([])
    // the log a loop would write if it did not log what decides defer_loading on the wire
    const events = run.events.map((event) => event.type !== 'request/header' ? event
      : { ...event, data: { ...event.data, header: { ...event.data.header, deferredTools: undefined } } })
    const problems = reconstructionProblems({ ...run, events })
    expect(problems).toHaveLength(3)
    expect(problems[0]).toBe('request 1: deferredTools rebuilt from the log is absent, dispatched ["web_search"]')
  }, 60_000)

  it.concurrent('fails a run whose app cannot boot with the exit code and the app\'s own stderr', async () => {
    const { entries, input } = await loadScenario(join(SCENARIOS_ROOT, 'text-turn'))
    const broken = entries.map((entry) => entry.name === 'dsh-acp-demo' ? { ...entry, config: { ...entry.config, toolOrder: [] } } : entry)
    await expect(runScenario(broken, input)).rejects.toThrow(/exited with code 1\)?\n--- app stderr ---\n.*toolOrder is an empty list/s)
  }, 60_000)
})
