import { randomBytes } from 'node:crypto'
import { cp, mkdtemp, readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compareFixture, record, recordTarget, replay, snapshotMode, writeFixture } from './replay.ts'
import { secretProblems } from './rules.ts'
import { SCENARIOS_ROOT, loadScenario } from './scenario.ts'

// the key is made up per run; the loopback model repeats it back, so the scrub has something to catch
const KEY = `sk-loop-${randomBytes(18).toString('base64url')}`
const requests: { authorization?: string; body: any }[] = []
let server: Server

function chunk(delta: object, finish: string | null = null) {
  return { id: 'chatcmpl-loop', object: 'chat.completion.chunk', created: 0, model: 'loopback-model', choices: [{ index: 0, delta, finish_reason: finish }] }
}

async function body(req: IncomingMessage): Promise<any> {
  let text = ''
  for await (const part of req) text += part
  return JSON.parse(text)
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const request = { authorization: req.headers.authorization, body: await body(req) }
    requests.push(request)
    const reply = `Hello from the loopback model. You sent ${request.authorization}.`
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const piece of [chunk({ role: 'assistant', content: '' }), ...reply.match(/.{1,7}/g)!.map((text) => chunk({ content: text })), chunk({}, 'stop')]) {
      res.write(`data: ${JSON.stringify(piece)}\n\n`)
    }
    res.write(`data: ${JSON.stringify({ ...chunk({}), choices: [], usage: { prompt_tokens: 120, completion_tokens: 11, prompt_tokens_details: { cached_tokens: 64 } } })}\n\n`)
    res.end('data: [DONE]\n\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

// refresh and record rewrite the fixtures this file copies; it runs with the replay
const rewriting = snapshotMode(process.env.DSH_SNAPSHOT) !== 'replay'

describe.skipIf(rewriting)('record mode against an OpenAI-compatible server', () => {
  it('records text-turn through dsh-llm-openai with the key from the environment only, and the recording replays', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'dsh-record-')), 'text-turn')
    await cp(join(SCENARIOS_ROOT, 'text-turn'), dir, { recursive: true })
    const scenario = await loadScenario(dir)
    const env = {
      DSH_RECORD_MODEL: 'loopback-model',
      DSH_RECORD_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      DSH_RECORD_API_KEY_ENV: 'DSH_SNAPSHOT_LOOPBACK_KEY',
      DSH_SNAPSHOT_LOOPBACK_KEY: KEY,
    }
    await writeFixture(scenario, await record(scenario, recordTarget(env), env))

    // the real adapter sent the pinned header's bytes and the key, as a header only
    expect(requests).toHaveLength(1)
    expect(requests[0].authorization).toBe(`Bearer ${KEY}`)
    expect(requests[0].body.model).toBe('loopback-model')
    expect(requests[0].body.tools.map((tool: any) => tool.function.name)).toEqual(['read_file', 'agent', 'apply_patch', 'list_files', 'web_search'])

    const session = await readFile(join(dir, 'session.jsonl'), 'utf8')
    const stdout = await readFile(join(dir, 'stdout.expected.jsonl'), 'utf8')
    expect(session).toContain('"model":"loopback-model"')
    expect(session).toContain('"cacheReadTokens":64')
    expect(stdout).toContain('Hello from the loopback model. You sent <redacted>.')
    for (const text of [session, stdout]) expect(text).not.toContain(KEY.slice(8))
    expect(await secretProblems(dir)).toEqual([])
    // the pinned header files did not change: the model id is not part of them
    for (const name of ['system-prompt.expected.md', 'tool-schemas.expected.json']) {
      expect(await readFile(join(dir, name), 'utf8')).toBe(await readFile(join(SCENARIOS_ROOT, 'text-turn', name), 'utf8'))
    }

    // offline again: the replay model serves "loopback-model" from the recording, byte for byte
    expect(await compareFixture(scenario, await replay(scenario))).toEqual([])
    expect(requests).toHaveLength(1)
  }, 60_000)
})
