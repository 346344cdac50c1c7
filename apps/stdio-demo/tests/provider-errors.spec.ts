import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { run, writeApp } from './setup.ts'

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
})

/** A loopback provider that fails every request with `status` and the body `reply(key sent)` makes. */
async function failingProvider(status: number, reply: (key: string) => string): Promise<{ origin: string; keys: string[] }> {
  const keys: string[] = []
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '')
      keys.push(key)
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: reply(key), type: 'test' } }))
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, keys }
}

function appOn(origin: string): string {
  return [
    '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: remote } }',
    `- { id: provider, name: dsh-llm-openai, config: { baseURL: "${origin}/v1", apiKeyEnv: TEST_PROVIDER_KEY, models: [{ id: remote }] } }`,
    '',
  ].join('\n')
}

describe('provider failures as the stdio bin prints them', () => {
  it.each([['a trailing space', 'sk-live-0123456789 '], ['a CRLF .env\'s \\r', 'sk-live-0123456789\r'], ['a leading tab', '\tsk-live-0123456789']])(
    'a key read with %s is sent trimmed, and a 401 that echoes it never prints it', async (_, raw) => {
      const provider = await failingProvider(401, (key) => `Incorrect API key provided: ${key}. You can find your key in your account.`)
      const { file } = await writeApp(appOn(provider.origin))
      const result = await run([file], 'hello\n', { env: { TEST_PROVIDER_KEY: raw } })
      expect(provider.keys).toEqual(['sk-live-0123456789'])
      expect(result.code).toBe(1)
      expect(result.stderr).not.toContain('0123456789')
      expect(result.stderr).toContain('Incorrect API key provided: [redacted].')
    })

  it('a provider message with newlines is still one line per failed turn', async () => {
    const provider = await failingProvider(500, () => 'internal boom\nsecond line\r\nthird')
    const { file } = await writeApp(appOn(provider.origin))
    const result = await run([file], 'one\ntwo\n', { env: { TEST_PROVIDER_KEY: 'sk-test' } })
    expect(result.code).toBe(1)
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/HTTP 500 from .* internal boom second line third$/)
    expect(lines[1]).toBe(lines[0])
    expect(lines[2]).toBe('2 of 2 turns failed')
  })
})
