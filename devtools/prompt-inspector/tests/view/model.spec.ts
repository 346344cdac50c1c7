import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { rebuildLastRequest } from 'dsh-agent-loop'
import { buildSessionView } from '../../src/view/build.ts'
import { loadSession } from '../../src/view/events.ts'
import type { SessionView } from '../../src/view/model.ts'
import { DEFAULT_PG_SCHEMA, DEFAULT_PG_URL_ENV } from '../../src/cli.ts'
import { tempDir } from '../setup.ts'
import { figuresFromLog, readEvents } from './expected.ts'
import { writeEmulatedCopy } from './emulated.ts'
import { NOTES_SECTION, recordRichSession } from './record.ts'
import { writeLongSession } from './synthetic.ts'

const PG = { urlEnv: DEFAULT_PG_URL_ENV, schema: DEFAULT_PG_SCHEMA }
const FIXTURE = fileURLToPath(new URL('../../../../fixtures/acp/tool-added-mid-session/session.jsonl', import.meta.url))

let file: string
let events: any[]
let view: SessionView
beforeAll(async () => {
  file = (await recordRichSession()).file
  events = await readEvents(file)
  view = buildSessionView(await loadSession(file, PG))
})

describe('the session view of a recorded session', () => {
  it('counts the usage records marked emulated (the offline model\'s), and none in a log without the mark', async () => {
    expect(view.summary.emulatedUsage).toBe(0)
    expect(buildSessionView(await loadSession(FIXTURE, PG)).summary.emulatedUsage).toBe(0)
    const marked = join(await tempDir(), 'emulated.jsonl')
    await writeEmulatedCopy(file, marked)
    const withUsage = events.filter((event) => event.data?.usage !== undefined)
    expect(withUsage.length).toBeGreaterThan(0)
    expect(buildSessionView(await loadSession(marked, PG)).summary.emulatedUsage).toBe(withUsage.length)
  })

  it('sums the same figures as a plain reading of the log', () => {
    const expected = figuresFromLog(events)
    const { summary } = view
    expect(summary.models).toEqual(expected.models)
    expect(summary.requests).toBe(expected.requests)
    expect(summary.turns).toBe(expected.turns)
    expect(summary.tokens.input).toBe(expected.input)
    expect(summary.cachedShare).toBeCloseTo(expected.cachedShare!, 12)
    expect(summary.uncached.total).toBe(expected.uncached)
    expect([summary.headerChanges, summary.toolsAdded, summary.toolsRemoved, summary.compactions, summary.failedTurns, summary.detectorBreaks])
      .toEqual([expected.headerChanges, expected.toolsAdded, expected.toolsRemoved, expected.compactions, expected.failedTurns, expected.detectorBreaks])
  })

  it('splits the uncached tokens by cause as the scripted usage dictates', () => {
    // from record.ts: each figure is input − cached of the request(s) of that cause
    const byCause = Object.fromEntries(Object.entries(view.summary.uncached.byCause).filter(([, value]) => value > 0))
    expect(byCause).toEqual({
      first_request: 6000,
      tools_schema_changed: 6600,
      system_changed: 7100,
      compaction: 500 + 1500, // the compaction call and the first request after it
      likely_provider_ttl_or_eviction: 2100,
      resume: 2400,
      new_input: 300 + 200 + 300 + 300,
    })
  })

  it('gives every request the header the existing reconstruction rebuilds from the log through its step', () => {
    for (const request of view.requests) {
      const cut = events.findIndex((event) => event.seq > request.seq && ['assistant/message', 'step/end', 'turn/end'].includes(event.type))
      const rebuilt = rebuildLastRequest(events.slice(0, cut + 1))!
      const header = view.headers[request.header]!
      expect({ model: header.model, system: header.system, tools: header.tools }).toEqual({ model: rebuilt.model, system: rebuilt.system, tools: rebuilt.tools })
      expect(header.toolsText).toBe(JSON.stringify(rebuilt.tools))
    }
  })

  it('keeps each distinct header once and points requests at it', () => {
    // initial, beta added, notes section added; the resumed run has neither, so it logs the first bytes again
    expect(view.headers).toHaveLength(3)
    expect(events.filter((event) => event.type === 'request/header')).toHaveLength(4)
    expect(view.requests.map((request) => request.header)).toEqual([0, 0, 1, 1, 2, 2, 2, 2, 2, 2, 0])
  })

  it('finds a break at each header change and each detector event, with the offset and section of the change', () => {
    const breaks = view.breaks.map((item) => ({ turn: view.requests[item.request]!.turn, reason: item.detector?.reason ?? null, part: item.diff?.part }))
    expect(breaks).toEqual([
      { turn: 2, reason: 'tools_schema_changed', part: 'tools' },
      { turn: 4, reason: 'system_changed', part: 'system' },
      { turn: 9, reason: 'likely_provider_ttl_or_eviction', part: undefined },
      { turn: 10, reason: null, part: 'tools' },
    ])
    const system = view.breaks[1]!
    const logged = events.find((event) => event.type === 'prompt-cache/break' && event.data.reason === 'system_changed').data
    const previous = view.headers[system.previousHeader!]!
    // the prefix is the tools JSON, a newline, then the system prompt: the logged offset is into the system prompt
    expect(system.diff!.offset).toBe(Buffer.byteLength(previous.toolsText) + 1 + logged.offset)
    expect(system.diff!.section).toBe('deployment:notes')
    expect(system.diff!.current.after).toContain(NOTES_SECTION.slice(0, 20))
    const tools = view.breaks[0]!.diff!
    expect(tools.section).toBe('tool #2 "beta"')
    expect(tools.offset).toBe(Buffer.byteLength(view.headers[0]!.toolsText) - 1) // where "]" meets ",{"
  })

  it('marks tool changes, the compaction, the failed turn and the resume between the rows they separate', () => {
    const markers = view.markers.map((marker) => [marker.kind, view.requests[marker.before]?.turn ?? null])
    expect(markers).toEqual([['tools', 2], ['turn-failed', 7], ['compaction', 7], ['resume', 10], ['tools', 10]])
    expect(view.requests.filter((request) => request.failed).map((request) => request.turn)).toEqual([6])
  })
})

describe('idle gaps against a provider profile', () => {
  it('marks the gaps beyond the TTL and bills their uncached tokens to ttl_gap', async () => {
    const dir = await tempDir()
    const path = join(dir, 'gaps.jsonl')
    // every 97th request comes after 6 minutes idle, the others after 4 s
    await writeLongSession(path, { requests: 200, tools: 3, changeEvery: 1000 })
    const judged = buildSessionView(await loadSession(path, PG), { status: 'known', ttlMs: 300_000, profile: 'anthropic', name: '5m' })
    expect(judged.requests.filter((request) => request.beyondTtl).map((request) => request.index)).toEqual([97, 194])
    expect(judged.requests.filter((request) => request.cause === 'ttl_gap').map((request) => request.index)).toEqual([97, 194])
    const uncached = (index: number) => judged.requests[index]!.usage!.input - judged.requests[index]!.usage!.cacheRead
    expect(judged.summary.uncached.byCause.ttl_gap).toBe(uncached(97) + uncached(194))
    const unjudged = buildSessionView(await loadSession(path, PG))
    expect(unjudged.requests.some((request) => request.beyondTtl !== null)).toBe(false)
    expect(unjudged.summary.uncached.byCause.ttl_gap).toBe(0)
  })
})

describe('reading a session', () => {
  it('shows a snapshot fixture whose headers are placeholders', async () => {
    const fixture = buildSessionView(await loadSession(FIXTURE, PG))
    expect(fixture.summary.requests).toBe(3)
    expect(fixture.headers).toHaveLength(1)
    expect(fixture.headers[0]!.tools).toBeNull()
    expect(fixture.headers[0]!.toolsText).toBe('{{tools}}')
    expect(fixture.markers).toEqual([expect.objectContaining({ kind: 'tools', before: 1, added: ['web_search'] })])
    expect(fixture.requests.map((request) => request.time)).toEqual([null, null, null])
    // the placeholder hides the bytes; the log's `change` header is a break, counted, explained from its marker
    expect(fixture.breaks.map((item) => [item.request, item.label, item.explanation])).toEqual([[1, 'header change', '1 tool added (web_search)']])
    expect(fixture.summary.headerChanges).toBe(1)
  })

  it.each([
    ['a line that is not JSON', '{"seq":1,"time":"t","type":"turn/start","data":{"turn":1}}\nnot json\n{}\n', /bad\.jsonl:2: not a JSON event/],
    ['an event without a seq', '{"time":"t","type":"turn/start","data":{}}\n', /bad\.jsonl:1: seq must be an integer, got undefined/],
    ['a header whose tools are neither a list nor a placeholder', '{"seq":1,"time":"t","type":"step/start","data":{"turn":1,"step":1}}\n{"seq":2,"time":"t","type":"request/header","data":{"header":{"model":"m","system":"s","tools":5}}}\n', /request\/header seq 2: data\.header\.tools must be a list of tools, got 5/],
    ['a request with no header before it', '{"seq":1,"time":"t","type":"step/start","data":{"turn":1,"step":1}}\n', /request of turn 1 step 1 \(seq 1\) has no request\/header before it/],
    ['an empty log', '\n', /no events in this session log/],
  ])('refuses %s with one line naming the place', async (_, text, message) => {
    const dir = await tempDir()
    const path = join(dir, 'bad.jsonl')
    await writeFile(path, text)
    await expect(loadSession(path, PG).then(buildSessionView)).rejects.toThrow(message)
  })

  it('refuses a line that is not UTF-8, naming the line and byte offset; a character cut off at the end is a torn line', async () => {
    const dir = await tempDir()
    const path = join(dir, 'latin1.jsonl')
    const lines = (await readEvents(file)).map((event) => JSON.stringify(event))
    const head = Buffer.from(`${lines[0]}\n{"seq":2,"time":"caf`)
    await writeFile(path, Buffer.concat([head, Buffer.from([0xe9]), Buffer.from(`"}\n${lines.slice(1).join('\n')}\n`)]))
    await expect(loadSession(path, PG)).rejects.toThrow(new RegExp(`^${path}:2: not valid UTF-8 at byte offset ${head.length}$`))
    await writeFile(path, Buffer.concat([Buffer.from(`${lines.join('\n')}\n{"seq":999,"time":"`), Buffer.from('語').subarray(0, 2)]))
    expect((await loadSession(path, PG)).events).toHaveLength(lines.length)
  })

  it('skips a torn last line', async () => {
    const dir = await tempDir()
    const path = join(dir, 'torn.jsonl')
    const lines = (await readEvents(file)).map((event) => JSON.stringify(event))
    await writeFile(path, `${lines.join('\n')}\n{"seq":999,"ti`)
    expect((await loadSession(path, PG)).events).toHaveLength(lines.length)
  })

  it('refuses a missing file, and a bare argument that is no session id', async () => {
    await expect(loadSession('/nonexistent/x.jsonl', PG)).rejects.toThrow(/^\/nonexistent\/x\.jsonl: cannot read session log: ENOENT/)
    await expect(loadSession('no such id!', PG)).rejects.toThrow(/"no such id!" is neither a session file \(\.jsonl\), pg:SESSION-ID nor a session id/)
    await expect(loadSession('pg:bad id', PG)).rejects.toThrow(/pg:bad id: bad session id "bad id"/)
  })
})
