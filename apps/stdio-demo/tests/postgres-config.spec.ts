import { describe, expect, it } from 'vitest'
import { run, writeApp } from './setup.ts'

// the schema is checked before any connection, so these need no server
describe('a PostgreSQL store misconfigured in the app file', () => {
  it.each([['Bad-Name'], ['1st'], ['']])('schema %j fails the boot with one line naming the value', async (schema) => {
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
      `- { id: sessions, name: dsh-session-postgres, config: { url: "postgres://u:s3cret@127.0.0.1:1/db", schema: ${JSON.stringify(schema)} } }`,
    ].join('\n') + '\n')
    const exit = await run([file], 'hi\n')
    expect(exit).toMatchObject({ code: 1, stdout: '' })
    expect(exit.stderr).toBe(`${file}: entry "sessions" (dsh-session-postgres): failed to start: schema ${JSON.stringify(schema)} is not a valid `
      + 'schema name: use 1 to 63 lower-case letters, digits and "_", not starting with a digit (e.g. dsh)\n')
  })

  it('a database that refuses the connection is one line, no [error] line before it', async () => {
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external } }',
      '- { id: sessions, name: dsh-session-postgres, config: { url: "postgres://u:s3cret@127.0.0.1:1/db" } }',
    ].join('\n') + '\n')
    for (const args of [[file], [file, '--sessions'], [file, '--continue']]) {
      const exit = await run(args, 'hi\n', { env: { DSH_LOG_LEVEL: 'info' } })
      expect(exit).toMatchObject({ code: 1, stdout: '' })
      expect(exit.stderr).toBe(`${file}: entry "sessions" (dsh-session-postgres): failed to start: cannot connect to PostgreSQL at `
        + 'postgres://u@127.0.0.1:1/db: connection refused (is the server running and listening there?)\n')
    }
  })
})
