import { mkdtemp, writeFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AppEntry } from './scenario.ts'
import { lineDiff, report, REFRESH_COMMAND } from './diff.ts'
import { Normalizer, type LogEvent } from './normalize.ts'
import { recordEntries, recordTarget, replayEntries, replayScript, snapshotMode } from './replay.ts'
import { REPO_ROOT, loadScenario, parseInput } from './scenario.ts'

const event = (seq: number, type: string, data: object): LogEvent => ({ seq, time: '2026-01-01T00:00:00.000Z', type, data })
const header = { model: 'm1', system: 'You are DSH.', tools: [{ name: 'a', description: 'A.', parameters: { type: 'object' } }] }

function normalizer(extra: Partial<ConstructorParameters<typeof Normalizer>[0]> = {}) {
  return new Normalizer({ sessionIds: ['3f1c9a2e-0000-4000-8000-000000000001'], cwd: join(tmpdir(), 'dsh-snapshot-x'), repoRoot: REPO_ROOT, ...extra })
}

describe('normalization', () => {
  it('scrubs times, durations, session ids and paths wherever they occur, and keeps seq', () => {
    const scrubbed = normalizer().scrub({
      seq: 7,
      time: '2026-07-06T10:00:00.000Z',
      durationMs: 12,
      sessionId: '3f1c9a2e-0000-4000-8000-000000000001',
      message: 'session "3f1c9a2e-0000-4000-8000-000000000001" at ' + join(tmpdir(), 'dsh-snapshot-x', 'sessions'),
      paths: [join(REPO_ROOT, 'apps'), join(tmpdir(), 'other'), join(homedir(), '.config'), `${join(tmpdir(), 'dsh-snapshot-x')}2`],
    })
    expect(scrubbed).toEqual({
      seq: 7,
      time: '<time>',
      durationMs: '<duration>',
      sessionId: '<session-1>',
      message: 'session "<session-1>" at <cwd>/sessions',
      paths: ['<repo>/apps', '<tmp>/other', '<home>/.config', '<tmp>/dsh-snapshot-x2'],
    })
  })

  it('never lets a secret through: the given key value, sk- keys and bearer tokens become <redacted>', () => {
    const secret = 'not-shaped-like-a-key-but-secret'
    const key = ['sk', 'live', '0123456789abcdefXYZ'].join('-')
    const scrubbed = normalizer({ secrets: [secret] }).scrub({ a: `key=${secret}`, b: `use ${key} now`, c: `Authorization: ${['Bearer', 'abc.def'].join(' ')}` })
    expect(JSON.stringify(scrubbed)).not.toMatch(/not-shaped|sk-live|Bearer/)
    expect(scrubbed).toEqual({ a: 'key=<redacted>', b: 'use <redacted> now', c: 'Authorization: <redacted>' })
  })

  it('numbers tool-call ids by first appearance, the same in the session and in stdout', () => {
    const n = normalizer()
    const session = n.session([
      event(1, 'assistant/message', { turn: 1, step: 1, text: '', toolCalls: [{ id: 'call_zz', name: 't', arguments: {} }, { id: 'call_aa', name: 't', arguments: {} }] }),
      event(2, 'tool/call', { turn: 1, step: 1, id: 'call_aa', name: 't', arguments: {} }),
    ], false)
    expect(session[0]).toContain('"id":"<call-1>"')
    expect(session[0]).toContain('"id":"<call-2>"')
    expect(session[1]).toContain('"id":"<call-2>"')
    const stdout = n.stdout([{ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call', toolCallId: 'call_zz' } } }])
    expect(stdout[0]).toContain('"toolCallId":"<call-1>"')
  })

  it('replaces the header bulk with placeholders unless the header is pinned', () => {
    const events = [event(4, 'request/header', { turn: 1, step: 1, reason: 'initial', header })]
    expect(JSON.parse(normalizer().session(events, false)[0]).data.header).toEqual({ model: 'm1', system: '{{system}}', tools: '{{tools}}' })
    expect(JSON.parse(normalizer().session(events, true)[0]).data.header).toEqual(header)
  })

  it('joins consecutive text chunks of one session, and only those', () => {
    const chunk = (sessionId: string, text: string) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } })
    const lines = normalizer().stdout([chunk('s', 'ec'), chunk('s', 'ho'), chunk('t', '!'), { jsonrpc: '2.0', id: 2, result: {} }, chunk('s', 'x')])
    expect(lines.map((line) => JSON.parse(line).params?.update.content.text ?? 'response')).toEqual(['echo', '!', 'response', 'x'])
  })
})

describe('the line diff', () => {
  it('is empty for equal texts and shows removed and added lines with context and line numbers', () => {
    expect(lineDiff('a\nb\n', 'a\nb\n')).toBe('')
    const diff = lineDiff('1\n2\n3\n4\n5\n6\n7\n', '1\n2\n3\nfour\n5\n6\n7\n')
    expect(diff.split('\n')).toEqual(['@@ expected line 2, produced line 2 @@', '  2', '  3', '- 4', '+ four', '  5', '  6'])
  })

  it('clips a long line to a window around its first difference', () => {
    const long = `{"a":"${'x'.repeat(500)}","b":1}`
    const diff = lineDiff(`${long}\n`, `${long.replace('"b":1', '"b":2')}\n`)
    expect(diff).toMatch(/^- …x+","b":1}$/m)
    expect(diff).toMatch(/^\+ …x+","b":2}$/m)
    expect(diff.length).toBeLessThan(500)
  })

  it('ends its report with the refresh command', () => {
    expect(report('s', [{ file: 'fixtures/acp/s/session.jsonl', diff: '- a\n+ b' }]).endsWith(REFRESH_COMMAND)).toBe(true)
  })
})

describe('the replay model', () => {
  it('answers each step with its recorded text, tool calls and usage, serving every recorded model id', () => {
    const usage = { inputTokens: 9, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }
    const script = replayScript([
      event(1, 'step/start', { turn: 1, step: 1 }),
      event(2, 'request/header', { turn: 1, step: 1, reason: 'initial', header: { ...header, model: 'gpt-x' } }),
      event(3, 'assistant/message', { turn: 1, step: 1, text: '', toolCalls: [{ id: '<call-1>', name: 'a', arguments: { q: 1 } }], usage }),
      event(4, 'step/start', { turn: 1, step: 2 }),
      event(5, 'assistant/message', { turn: 1, step: 2, text: 'done', toolCalls: [] }),
      event(6, 'turn/end', { turn: 1, reason: 'done' }),
    ])
    expect(script).toEqual({
      models: ['gpt-x'],
      responses: [{ text: '', toolCalls: [{ id: '<call-1>', name: 'a', arguments: { q: 1 } }], usage }, { text: 'done' }],
    })
  })

  it('needs a delay from input.json for a call cut off by a cancel, and applies it', () => {
    const events = [
      event(1, 'step/start', { turn: 1, step: 1 }),
      event(2, 'step/end', { turn: 1, step: 1 }),
      event(3, 'turn/end', { turn: 1, reason: 'cancelled', error: { message: 'the turn was cancelled' } }),
    ]
    expect(() => replayScript(events, {}, 'x/session.jsonl')).toThrow(/x\/session\.jsonl: model call 1 has no assistant\/message .*"modelDelayMs": \{ "1": <ms> \}/)
    expect(replayScript(events, { 1: 5000 }).responses).toEqual([{ text: '', delayMs: 5000 }])
    expect(() => replayScript(events, { 1: 5000, 3: 10 })).toThrow(/modelDelayMs names model call 3, but the session makes 1 call\(s\)/)
  })

  it('replays a model failure as a scripted error', () => {
    const events = [event(1, 'step/start', { turn: 1, step: 1 }), event(2, 'turn/end', { turn: 1, reason: 'error', error: { message: 'boom' } })]
    expect(replayScript(events).responses).toEqual([{ text: '', error: 'boom' }])
  })

  const entries: AppEntry[] = [
    { id: 'app', name: 'dsh-acp-demo', config: { model: 'slow', persona: 'P' }, disabled: false },
    { id: 'slow', name: 'dsh-llm-scripted', config: { models: ['slow'] }, disabled: false },
    { id: 'tools', name: 'dsh-tools-static', config: { tools: [] }, disabled: false },
  ]

  it('boots the replay with the recorded models only: adapters removed, scripted-echo off, one script entry', () => {
    expect(replayEntries(entries, ['gpt-x'], '/s.json')).toEqual([
      { id: 'app', name: 'dsh-acp-demo', config: { model: 'gpt-x', persona: 'P', scripted: false }, disabled: false },
      entries[2],
      { id: 'snapshot-replay', name: 'dsh-llm-scripted', config: { models: ['gpt-x'], script: '/s.json' }, disabled: false },
    ])
    // no model call recorded: the configured model is served, by an empty script
    expect(replayEntries(entries, [], '/s.json').at(-1)?.config.models).toEqual(['slow'])
  })

  it('records offline with the app file as written, or swaps every adapter for the OpenAI-compatible target', () => {
    expect(recordEntries(entries)).toEqual(entries)
    const target = { model: 'gpt-x', baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: 'MY_KEY' }
    expect(recordEntries(entries, target)).toEqual([
      { id: 'app', name: 'dsh-acp-demo', config: { model: 'gpt-x', persona: 'P' }, disabled: false },
      entries[2],
      { id: 'snapshot-record', name: 'dsh-llm-openai', config: { baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: 'MY_KEY', models: ['gpt-x'] }, disabled: false },
    ])
  })
})

describe('settings from the environment', () => {
  it('reads the mode, defaulting to replay, and refuses an unknown one naming the valid ones', () => {
    expect(snapshotMode(undefined)).toBe('replay')
    expect(snapshotMode('refresh')).toBe('refresh')
    expect(() => snapshotMode('rerecord')).toThrow('DSH_SNAPSHOT="rerecord" is not a mode; valid: replay, refresh, record')
  })

  it('reads the record target, and refuses a key where a variable name belongs without echoing it', () => {
    expect(recordTarget({})).toBeUndefined()
    expect(recordTarget({ DSH_RECORD_MODEL: 'm' })).toEqual({ model: 'm', baseURL: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' })
    const key = ['sk', 'abcdefghijklmnopqrstuvwxyz'].join('-')
    expect(() => recordTarget({ DSH_RECORD_MODEL: 'm', DSH_RECORD_API_KEY_ENV: key })).toThrow(/must be the NAME of a variable/)
    try { recordTarget({ DSH_RECORD_MODEL: 'm', DSH_RECORD_API_KEY_ENV: key }) } catch (error) { expect((error as Error).message).not.toContain(key) }
  })
})

describe('input.json', () => {
  const ok = { operations: [{ request: 'initialize', params: {} }] }
  it.each([
    [[], 'the top level must be an object'],
    [{ ops: [] }, 'ops is not a known key; valid: description, modelDelayMs, operations'],
    [{ operations: [] }, 'operations must be a non-empty list'],
    [{ ...ok, modelDelayMs: { first: 10 } }, 'modelDelayMs["first"] must be keyed by a model call number'],
    [{ ...ok, modelDelayMs: { 1: -5 } }, 'modelDelayMs["1"] must be an integer ≥ 0, got -5'],
    [{ operations: [{ send: 'initialize' }] }, 'operations[0] must have exactly one of request, notify, until, sleep, join'],
    [{ operations: [{ request: 'a', notify: 'b' }] }, 'operations[0] must have exactly one of'],
    [{ operations: [{ notify: 'session/cancel', background: true }] }, 'operations[0].background is not valid beside "notify"; valid: notify, params'],
    [{ operations: [{ request: '' }] }, 'operations[0].request must be an ACP method name'],
    [{ operations: [{ sleep: 'long' }] }, 'operations[0].sleep must be a number of milliseconds'],
    [{ operations: [{ join: 1 }] }, 'operations[0].join must be true'],
    [{ operations: [{ until: { type: 'step/start' } }] }, 'operations[0].until.event must be a session event type'],
  ])('refuses %j naming the file and the field', (data, message) => {
    expect(() => parseInput(data, 'fixtures/acp/x/input.json')).toThrow(`fixtures/acp/x/input.json: ${message}`)
  })

  it('accepts every operation kind', () => {
    const input = { modelDelayMs: { 1: 0 }, operations: [{ request: 'a', background: true }, { notify: 'b' }, { until: { event: 'step/start', count: 2 } }, { sleep: 5 }, { join: true }] }
    expect(parseInput(input, 'input.json')).toEqual(input)
  })
})

describe('a scenario folder', () => {
  async function folder(yaml: string, input: string) {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-scenario-'))
    await writeFile(join(dir, 'cordis.yml'), yaml)
    await writeFile(join(dir, 'input.json'), input)
    return dir
  }
  const ok = JSON.stringify({ operations: [{ request: 'initialize' }] })

  it('loads, marking only text-turn as pinned', async () => {
    const scenario = await loadScenario(await folder('- { id: app, name: dsh-acp-demo, config: { model: m, script: ./s.json } }\n', ok))
    expect(scenario.pinned).toBe(false)
    expect(scenario.entries[0].config.script).toBe(join(scenario.dir, 's.json'))
    expect(scenario.input.operations).toHaveLength(1)
  })

  it('refuses an app file without the app entry, and an input.json that is not JSON, naming the file', async () => {
    const noApp = await folder('- { id: tools, name: dsh-tools-static }\n', ok)
    await expect(loadScenario(noApp)).rejects.toThrow(`${join(noApp, 'cordis.yml')}: no entry runs dsh-acp-demo`)
    const badJson = await folder('- { id: app, name: dsh-acp-demo }\n', '{ operations: [] }')
    await expect(loadScenario(badJson)).rejects.toThrow(`${join(badJson, 'input.json')}: `)
  })
})

