import { throwawaySchema } from 'dsh-session-postgres/testing'
import { describe, expect, inject, it, onTestFinished } from 'vitest'
import { run, writeApp } from './setup.ts'

const URL_ENV = 'DSH_TEST_STDIO_PG_URL'

describe('side sessions on a PostgreSQL session store', () => {
  it('--sessions lists the side session under its parent, and --resume goes on with it', { timeout: 60_000 }, async () => {
    const { schema, drop } = throwawaySchema(inject('pgUrl'))
    onTestFinished(drop)
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
      `- { id: sessions, name: dsh-session-postgres, config: { urlEnv: ${URL_ENV}, schema: ${schema} } }`,
      '',
    ].join('\n'))
    const env = { [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' }
    expect(await run([file], 'hello there\n/side first aside\n', { env })).toMatchObject({ code: 0, stdout: 'echo: hello there\necho: first aside\n' })
    const listed = (await run([file, '--sessions'], '', { env })).stdout.trimEnd().split('\n')
    expect(listed).toHaveLength(2)
    const main = listed[0]!.split(' ')[0]!
    expect(listed[0]).toMatch(new RegExp(`^${main}  \\S+  1 turn  "hello there"$`))
    expect(listed[1]).toMatch(new RegExp(`^  ${main}~1  \\S+  2 turns  side: "first aside"$`))
    expect(await run([file, '--resume', `${main}~1`], 'more\n', { env })).toMatchObject({ code: 0, stdout: 'echo: more\n' })
  })
})
