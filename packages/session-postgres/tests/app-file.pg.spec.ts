import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppBootError, boot } from 'dsh-app-boot'
import { describe, expect, it, onTestFinished } from 'vitest'
import { freshSchema, pgUrl, sql } from './helpers.ts'

const URL_ENV = 'DSH_TEST_APP_PG_URL'

async function appFile(dbConfig: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-pg-app-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'app.yml')
  await writeFile(file, `- id: app
  name: dsh-harness
  config:
    sessionStore: external
- id: sessions
  name: dsh-session-postgres
  config:
${dbConfig}
`)
  return file
}

const resolve = (name: string) => import.meta.resolve(name)

describe('selected from an app file', () => {
  it('serves the loop from PostgreSQL when the spine says sessionStore: external', async () => {
    const schema = freshSchema()
    process.env[URL_ENV] = pgUrl()
    onTestFinished(() => { delete process.env[URL_ENV] })
    const app = await boot({ file: await appFile(`    urlEnv: ${URL_ENV}\n    schema: ${schema}`), resolve, logLevel: 'silent' })
    onTestFinished(() => app.dispose())
    const url = new URL(pgUrl())
    expect(app.ctx.sessions.location).toBe(`PostgreSQL at postgres://${url.username}@${url.host}${url.pathname}, schema "${schema}"`)
    expect(app.ctx.sessions.location).not.toContain(url.password)
    const agent = await app.ctx.agentLoop.createAgent({ id: 'from-yaml' })
    expect((await agent.prompt('hi')).text).toBe('echo: hi')
    const { rows } = await sql(`SELECT count(*)::int AS n FROM "${schema}".events WHERE session_id = 'from-yaml'`)
    expect(rows[0].n).toBe(agent.session.lastSeq)
  })

  it('fails the boot with one line naming the entry when the database refuses the connection', async () => {
    const file = await appFile('    url: postgres://dsh:s3cret-word@127.0.0.1:1/dsh')
    const error = await boot({ file, resolve, logLevel: 'silent' }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(AppBootError)
    const message = (error as Error).message
    expect(message).toMatch(/entry "sessions" \(dsh-session-postgres\).*cannot connect to PostgreSQL at postgres:\/\/dsh@127\.0\.0\.1:1\/dsh: connection refused/)
    expect(message).not.toContain('s3cret-word')
    expect(message.split('\n')).toHaveLength(1)
  })
})
