import { startOutage, storedEvents, throwawaySchema } from 'dsh-session-postgres/testing'
import { describe, expect, inject, it, onTestFinished } from 'vitest'
import { App, run, writeApp } from './setup.ts'

const URL_ENV = 'DSH_TEST_STDIO_PG_DURABLE_URL'

/**
 * The stdio bin on a PostgreSQL store reached through a relay that can hold statements (a slow network),
 * with `entry` beside the app and the store, after one answered turn.
 */
async function startOnRelay(entry: string) {
  const relay = await startOutage(inject('pgUrl'))
  onTestFinished(() => relay.close())
  const { schema, drop } = throwawaySchema(inject('pgUrl'))
  onTestFinished(drop)
  const { file } = await writeApp([
    '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
    `- { id: sessions, name: dsh-session-postgres, config: { urlEnv: ${URL_ENV}, schema: ${schema} } }`,
    entry,
  ].join('\n') + '\n')
  const app = new App([file], { env: { [URL_ENV]: relay.url, DSH_LOG_LEVEL: 'warn' } })
  app.send('hello')
  expect(await app.nextLine()).toBe('echo: hello')
  /** What the store holds of the app file's only session, read directly from the database. */
  const stored = async () => {
    const listed = await run([file, '--sessions'], '', { env: { [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' } })
    return storedEvents(inject('pgUrl'), schema, listed.stdout.split(' ')[0]!)
  }
  return { relay, app, stored }
}

describe('the stdio front door prints nothing of a turn before PostgreSQL has committed it (the real bin, kill -9)', { timeout: 120_000 }, () => {
  it('the tool call it showed is stored when the process is killed right after showing it', async () => {
    const { relay, app, stored: storedNow } = await startOnRelay(
      '- { id: tools, name: dsh-tools-static, config: { tools: [{ name: lookup, description: Look a word up., result: a small furry animal}] } }',
    )
    relay.delay(300)
    app.send('/call lookup {"word":"vole"}')
    await app.until(() => app.stderr.includes('→ lookup'), 'showing the tool call')
    const exit = await app.stop('SIGKILL')
    expect(exit.stderr.split('\n')[0]).toBe('→ lookup {"word":"vole"}')

    // statements were held 300 ms on their way: what was shown must be committed all the same
    const stored = await storedNow()
    expect(stored.filter((event) => event.type === 'user/message').map((event) => event.data.text)).toEqual(['hello', '/call lookup {"word":"vole"}'])
    expect(stored.filter((event) => event.type === 'tool/call').map((event) => [event.data.name, event.data.arguments])).toEqual([['lookup', { word: 'vole' }]])
  })

  it('a model switch it confirmed is stored when the process is killed right after confirming it', async () => {
    const { relay, app, stored: storedNow } = await startOnRelay('- { id: more, name: dsh-llm-scripted, config: { models: [other-echo] } }')
    relay.delay(300)
    app.send('/model other-echo')
    expect(await app.nextLine()).toMatch(/^model: scripted-echo → other-echo /)
    await app.stop('SIGKILL')

    const stored = await storedNow()
    expect(stored.filter((event) => event.type === 'model/switch').map((event) => event.data)).toEqual([{ turn: 1, from: 'scripted-echo', to: 'other-echo' }])
  })
})
