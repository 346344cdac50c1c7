import { startOutage, storedEvents, throwawaySchema } from 'dsh-session-postgres/testing'
import { describe, expect, inject, it, onTestFinished } from 'vitest'
import { App, run, writeApp } from './setup.ts'

const URL_ENV = 'DSH_TEST_STDIO_PG_OUTAGE_URL'

describe('the stdio front door while its PostgreSQL server goes away and comes back', { timeout: 120_000 }, () => {
  it('each turn while it is away fails with one line; once it answers, the next turn works on the same session', async () => {
    const outage = await startOutage(inject('pgUrl'))
    onTestFinished(() => outage.close())
    const { schema, drop } = throwawaySchema(inject('pgUrl'))
    onTestFinished(drop)
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
      `- { id: sessions, name: dsh-session-postgres, config: { urlEnv: ${URL_ENV}, schema: ${schema}, connectTimeoutMs: 3000 } }`,
    ].join('\n') + '\n')
    const app = new App([file], { env: { [URL_ENV]: outage.url, DSH_LOG_LEVEL: 'warn' } })
    app.send('hello')
    expect(await app.nextLine()).toBe('echo: hello')

    await outage.cut()
    for (const [index, text] of ['anyone?', 'still there?'].entries()) {
      app.send(text)
      await app.until(() => app.stderr.split('\n').length > index + 1, `reporting turn "${text}"`)
    }
    const lines = app.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    // the first may be the lost connection (the turn noticed it first) or the refused reconnection
    for (const line of lines) {
      expect(line).toMatch(/^error: (cannot connect to PostgreSQL at postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres: connection refused|session store postgresql: cannot persist session "[^"]+": lost the connection)/)
    }
    expect(lines[1]).toMatch(/^error: cannot connect to PostgreSQL .*: connection refused \(is the server running and listening there\?\)$/)
    expect(app.stderr).not.toContain(new URL(inject('pgUrl')).password)

    await outage.restore()
    app.send('back again')
    expect(await app.nextLine()).toBe('echo: back again')
    const exit = await app.finish()
    expect(exit.stderr.trimEnd().split('\n').slice(2)).toEqual(['2 of 4 turns failed'])
    // one session: hello, the turn cut off (if it had begun) closed as an error on reopen, back again
    const listed = await run([file, '--sessions'], '', { env: { [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' } })
    const id = listed.stdout.split(' ')[0]!
    const stored = await storedEvents(inject('pgUrl'), schema, id)
    const texts = stored.filter((event) => event.type === 'user/message').map((event) => event.data.text)
    expect(texts.at(0)).toBe('hello')
    expect(texts.at(-1)).toBe('back again')
    expect(stored.filter((event) => event.type === 'turn/end').length).toBe(stored.filter((event) => event.type === 'turn/start').length)
    expect(stored.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'done' } })
  })

  it('a wrong password is one line naming the user, without the password, at boot', async () => {
    const url = new URL(inject('pgUrl'))
    url.password = 'wrong-Pa55word'
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
      `- { id: sessions, name: dsh-session-postgres, config: { urlEnv: ${URL_ENV} } }`,
    ].join('\n') + '\n')
    const exit = await run([file], 'hi\n', { env: { [URL_ENV]: url.href, DSH_LOG_LEVEL: 'info' } })
    expect(exit).toMatchObject({ code: 1, stdout: '' })
    expect(exit.stderr.split('\n')).toHaveLength(2)
    expect(exit.stderr).toMatch(/^\S+app\.yml: entry "sessions" \(dsh-session-postgres\): failed to start: PostgreSQL at postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres refused the login of user "dsh_test": authentication failed/)
    expect(exit.stderr).not.toContain('wrong-Pa55word')
  })
})
