import { describe, expect, inject, it } from 'vitest'
import { runBin } from './run.ts'

// postgres.yml names the schema `dsh`: on the run's throwaway server (or DSH_TEST_PG_URL's database) that
// schema is created or migrated as the file says, and left there like a user's
describe('postgres.yml, booted as written', () => {
  it('keeps the stdio demo\'s sessions in PostgreSQL: a turn, then the listing shows it', { timeout: 60_000 }, async () => {
    const env = { DSH_PG_URL: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' }
    const prompt = `hello from postgres.yml ${Date.now()}`
    expect(await runBin('dsh-stdio-demo', ['postgres.yml'], `${prompt}\n`, env)).toMatchObject({ code: 0, stdout: `echo: ${prompt}\n`, stderr: '' })
    const listed = await runBin('dsh-stdio-demo', ['postgres.yml', '--sessions'], '', env)
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(prompt)
  })

  it('passes dsh-prompt lint with the database URL and no API key set', { timeout: 60_000 }, async () => {
    const env: Record<string, string> = { DSH_PG_URL: inject('pgUrl'), DSH_LOG_LEVEL: 'error' }
    for (const name of Object.keys(process.env)) if (name.endsWith('_API_KEY')) env[name] = ''
    const lint = await runBin('dsh-prompt', ['lint', 'postgres.yml', '--json'], '', env)
    expect(lint.code, lint.stderr).toBe(0)
    expect(JSON.parse(lint.stdout).findings).toEqual([])
  })
})
