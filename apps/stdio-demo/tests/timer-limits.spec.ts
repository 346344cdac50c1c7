import { describe, expect, it } from 'vitest'
import { run, writeApp } from './setup.ts'

// 2^31 ms: Node's setTimeout fires anything above 2^31 - 1 after 1 ms, so each key refuses it at boot
const OVER = 2 ** 31
const app = '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: m, toolTimeoutMs: 1000 } }'
const model = '- { id: llm, name: dsh-llm-openai, config: { baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: HOME, models: [m] } }'

const cases: [string, string[], string][] = [
  ['toolTimeoutMs (forwarded to the tool runtime as timeoutMs)', [app.replace('1000', String(OVER)), model],
    'entry "app" (dsh-stdio-demo): invalid config: $.toolTimeoutMs expected number <= 2147483647 but got 2147483648'],
  ['a static tool\'s delayMs', [app, model, `- { id: t, name: dsh-tools-static, config: { tools: [{ name: a, description: d, delayMs: ${OVER} }] } }`],
    'entry "t" (dsh-tools-static): invalid config: $.tools[0].delayMs expected number <= 2147483647 but got 2147483648'],
  ['a static tool\'s afterReadyMs', [app, model, `- { id: t, name: dsh-tools-static, config: { tools: [{ name: a, description: d, afterReadyMs: ${OVER} }] } }`],
    'entry "t" (dsh-tools-static): invalid config: $.tools[0].afterReadyMs expected number <= 2147483647 but got 2147483648'],
  ['an HTTP adapter\'s timeoutMs', [app, model.replace('models: [m]', `models: [m], timeoutMs: ${OVER}`)],
    'entry "llm" (dsh-llm-openai): invalid config: $.timeoutMs expected number <= 2147483647 but got 2147483648'],
  ['an HTTP adapter\'s idleTimeoutMs', [app, model.replace('models: [m]', `models: [m], idleTimeoutMs: ${OVER}`)],
    'entry "llm" (dsh-llm-openai): invalid config: $.idleTimeoutMs expected number <= 2147483647 but got 2147483648'],
  ['the prompt cache\'s ttlMs', [app, model, `- { id: pc, name: dsh-cache-break-detector, config: { ttlMs: ${OVER} } }`],
    'entry "pc" (dsh-cache-break-detector): invalid config: $.ttlMs expected a number of milliseconds greater than 0 and at most 2147483647 but got 2147483648'],
  ['an MCP server\'s callTimeoutMs', [app, model, `- { id: mcp, name: dsh-tools-mcp, config: { servers: { x: { command: node, callTimeoutMs: ${OVER} } } } }`],
    'entry "mcp" (dsh-tools-mcp): invalid config: $.servers.x.callTimeoutMs expected number <= 2147483647 but got 2147483648'],
]

describe('millisecond keys above the longest Node timer, through the executable', () => {
  it.each(cases)('refuses %s in one line naming the key and the value', async (_, lines, message) => {
    const { file } = await writeApp(`${lines.join('\n')}\n`)
    const result = await run([file], 'hi\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: ${message}\n`)
  })

  it('refuses DSH_STARTUP_TIMEOUT_MS above it', async () => {
    const { file } = await writeApp(`${app}\n${model}\n`)
    const result = await run([file], 'hi\n', { env: { DSH_STARTUP_TIMEOUT_MS: String(OVER) } })
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe('invalid DSH_STARTUP_TIMEOUT_MS "2147483648" (a string); expected a whole number of milliseconds from 0 to 2147483647 '
      + '(a Node timer fires a longer one at once), e.g. 15000\n')
  })

  it('accepts 2147483647 itself', async () => {
    const { file } = await writeApp(`${app.replace('model: m, ', '').replace('1000', '2147483647')}\n`)
    expect(await run([file], 'hi\n')).toMatchObject({ code: 0, stdout: 'echo: hi\n' })
  })
})
