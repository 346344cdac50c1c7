import { startOutage, storedEvents, throwawaySchema } from 'dsh-session-postgres/testing'
import { describe, expect, inject, it, onTestFinished } from 'vitest'
import { App, run, writeApp } from './setup.ts'

const URL_ENV = 'DSH_TEST_STDIO_PG_DURABLE_URL'

describe('the stdio front door prints nothing of a turn before PostgreSQL has committed it (the real bin, kill -9)', { timeout: 120_000 }, () => {
  it('the tool call it showed is stored when the process is killed right after showing it', async () => {
    // statements reach the server through a relay that holds them 300 ms: a slow network
    const relay = await startOutage(inject('pgUrl'))
    onTestFinished(() => relay.close())
    const { schema, drop } = throwawaySchema(inject('pgUrl'))
    onTestFinished(drop)
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
      `- { id: sessions, name: dsh-session-postgres, config: { urlEnv: ${URL_ENV}, schema: ${schema} } }`,
      '- { id: tools, name: dsh-tools-static, config: { tools: [{ name: lookup, description: Look a word up., result: a small furry animal}] } }',
    ].join('\n') + '\n')
    const app = new App([file], { env: { [URL_ENV]: relay.url, DSH_LOG_LEVEL: 'warn' } })
    app.send('hello')
    expect(await app.nextLine()).toBe('echo: hello')

    relay.delay(300)
    app.send('/call lookup {"word":"vole"}')
    await app.until(() => app.stderr.includes('→ lookup'), 'showing the tool call')
    const exit = await app.stop('SIGKILL')
    expect(exit.stderr.split('\n')[0]).toBe('→ lookup {"word":"vole"}')

    const listed = await run([file, '--sessions'], '', { env: { [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' } })
    const id = listed.stdout.split(' ')[0]!
    const stored = await storedEvents(inject('pgUrl'), schema, id)
    expect(stored.filter((event) => event.type === 'user/message').map((event) => event.data.text)).toEqual(['hello', '/call lookup {"word":"vole"}'])
    expect(stored.filter((event) => event.type === 'tool/call').map((event) => [event.data.name, event.data.arguments])).toEqual([['lookup', { word: 'vole' }]])
  })

  it('a model switch it confirmed is stored when the process is killed right after confirming it', async () => {
    const relay = await startOutage(inject('pgUrl'))
    onTestFinished(() => relay.close())
    const { schema, drop } = throwawaySchema(inject('pgUrl'))
    onTestFinished(drop)
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
      `- { id: sessions, name: dsh-session-postgres, config: { urlEnv: ${URL_ENV}, schema: ${schema} } }`,
      '- { id: more, name: dsh-llm-scripted, config: { models: [other-echo] } }',
    ].join('\n') + '\n')
    const app = new App([file], { env: { [URL_ENV]: relay.url, DSH_LOG_LEVEL: 'warn' } })
    app.send('hello')
    expect(await app.nextLine()).toBe('echo: hello')

    relay.delay(300)
    app.send('/model other-echo')
    expect(await app.nextLine()).toMatch(/^model: scripted-echo → other-echo /)
    await app.stop('SIGKILL')

    const listed = await run([file, '--sessions'], '', { env: { [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' } })
    const stored = await storedEvents(inject('pgUrl'), schema, listed.stdout.split(' ')[0]!)
    expect(stored.filter((event) => event.type === 'model/switch').map((event) => event.data)).toEqual([{ turn: 1, from: 'scripted-echo', to: 'other-echo' }])
  })
})
