import { hostname } from 'node:os'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { storedEvents, throwawaySchema } from 'dsh-session-postgres/testing'
import { describe, expect, inject, it, onTestFinished } from 'vitest'
import { App, run, writeApp } from './setup.ts'

const URL_ENV = 'DSH_TEST_STDIO_PG_URL'

/** An app file whose sessions live in PostgreSQL (a fresh schema unless one is given), plus static tools. */
async function pgApp(tools: string[] = [], given?: string) {
  let schema = given
  if (!schema) {
    const fresh = throwawaySchema(inject('pgUrl'))
    onTestFinished(fresh.drop)
    schema = fresh.schema
  }
  const lines = [
    '- { id: app, name: dsh-stdio-demo, config: { sessionStore: external, persistenceRoot: ./sessions } }',
    `- { id: sessions, name: dsh-session-postgres, config: { urlEnv: ${URL_ENV}, schema: ${schema} } }`,
    ...tools.map((name) => `- { id: tools-${name}, name: dsh-tools-static, config: { tools: [{ name: ${name}, description: The ${name} tool. }] } }`),
  ]
  return { ...await writeApp(`${lines.join('\n')}\n`), schema }
}

// passed explicitly, so the runs depend on no default folder and print no info lines
const env = () => ({ [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' })
const events = (schema: string, id: string) => storedEvents(inject('pgUrl'), schema, id)

/** The session ids `--sessions` lists, most recent first. */
async function listedIds(file: string): Promise<string[]> {
  const { stdout } = await run([file, '--sessions'], '', { env: env() })
  return stdout.trimEnd().split('\n').map((line) => line.split(' ')[0]!)
}

const headerReasons = (log: { type: string; data: any }[]) => log.filter((event) => event.type === 'request/header').map((event) => event.data.reason)
const turns = (log: { type: string; data: any }[]) => log.filter((event) => event.type === 'turn/start').map((event) => event.data.turn)

// each case runs the bin five to nine times, a few seconds each on a busy machine
describe('the stdio front door on a PostgreSQL session store', { timeout: 120_000 }, () => {
  it('lists, resumes by id and continues sessions another run wrote; the next changed header says resume', async () => {
    const { file, dir, schema } = await pgApp()
    const url = new URL(inject('pgUrl'))
    const where = `PostgreSQL at postgres://${url.username}@${url.host}${url.pathname}, schema "${schema}"`
    expect(await run([file, '--sessions'], '', { env: env() })).toEqual({ code: 0, stdout: `no sessions in ${where}\n`, stderr: '' })

    // A: one run writes a session and exits
    expect(await run([file], 'first question\n', { env: env() })).toEqual({ code: 0, stdout: 'echo: first question\n', stderr: '' })
    const [older] = await listedIds(file)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await run([file], 'other\nand more\n', { env: env() })).toMatchObject({ code: 0 })
    const newer = (await listedIds(file)).find((id) => id !== older)

    const listed = await run([file, '--sessions'], '', { env: env() })
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    expect(listed.stdout).toMatch(new RegExp(`^${newer}  \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  2 turns  "other"\n${older}  \\S+  1 turn  "first question"\n$`))

    // B: another run resumes it by id and goes on; an unchanged prefix is not logged again
    expect(await run([file, '--resume', older!], 'second question\n', { env: env() })).toEqual({ code: 0, stdout: 'echo: second question\n', stderr: '' })
    const resumed = await events(schema, older!)
    expect(turns(resumed)).toEqual([1, 2])
    expect(headerReasons(resumed)).toEqual(['initial'])
    expect(resumed.filter((event) => event.type === 'user/message').map((event) => event.data.text)).toEqual(['first question', 'second question'])

    // --continue takes the most recent (the resumed one); with a tool more, its next header is logged with reason resume
    const withTool = await pgApp(['get_time'], schema)
    expect(await run([withTool.file, '--continue'], 'third\n', { env: env() }))
      .toEqual({ code: 0, stdout: 'echo: third\n', stderr: '(Tool added: get_time)\n' })
    const continued = await events(schema, older!)
    expect(turns(continued)).toEqual([1, 2, 3])
    expect(headerReasons(continued)).toEqual(['initial', 'resume'])
    expect(continued.findLast((event) => event.type === 'request/header')!.data.header.tools.map((tool: { name: string }) => tool.name)).toEqual(['agent', 'get_time'])

    // everything went to the database: no JSONL folder appeared
    expect(existsSync(join(dir, 'sessions'))).toBe(false)
    expect(await listedIds(file)).toEqual([older, newer])
  })

  it('an unknown id and --continue without sessions are one clear line, exit 1', async () => {
    const { file } = await pgApp()
    expect(await run([file, '--resume', 'nope'], 'hi\n', { env: env() }))
      .toEqual({ code: 1, stdout: '', stderr: '--resume: no stored session "nope"; --sessions lists the 0 there are\n' })
    expect(await run([file, '--continue'], 'hi\n', { env: env() }))
      .toEqual({ code: 1, stdout: '', stderr: '--continue: there is no stored session yet; run without it to start one\n' })
  })

  it('a session another run is writing is listed as in use, --continue passes over it, and resuming it is one BUSY line without the password', async () => {
    const { file, schema } = await pgApp()
    expect(await run([file], 'older\n', { env: env() })).toMatchObject({ code: 0 })
    const [free] = await listedIds(file)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await run([file], 'newer\n', { env: env() })).toMatchObject({ code: 0 })
    const id = (await listedIds(file)).find((listed) => listed !== free)!

    const holder = new App([file, '--resume', id], { env: env() })
    holder.send('still here')
    expect(await holder.nextLine()).toBe('echo: still here')

    const listed = await run([file, '--sessions'], '', { env: env() })
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    // listed with its contents and its holder (the fleet listing reads it without its lock), most recent first
    expect(listed.stdout).toMatch(new RegExp(`^${id}  \\S+  2 turns  "newer"  in use by ${hostname()}:${holder.pid} since \\d{4}-\\S+Z\n${free}  \\S+  1 turn  "older"\n$`))
    const refused = await run([file, '--resume', id], 'hi\n', { env: env() })
    expect(refused).toMatchObject({ code: 1, stdout: '' })
    expect(refused.stderr.split('\n')).toHaveLength(2)
    expect(refused.stderr).toMatch(new RegExp(`^\\S*app\\.yml: entry "app" \\(dsh-stdio-demo\\): cannot open a session \\(PostgreSQL at postgres://[^ ]+, schema "${schema}"\\): session "${id}" is busy: another process is writing it`))
    expect(refused.stderr).not.toContain(new URL(inject('pgUrl')).password)
    // the most recent session is in use elsewhere: --continue goes on with the most recent one that is not
    expect(await run([file, '--continue'], 'go on\n', { env: env() })).toEqual({ code: 0, stdout: 'echo: go on\n', stderr: '' })
    expect((await events(schema, free!)).filter((event) => event.type === 'user/message').map((event) => event.data.text)).toEqual(['older', 'go on'])

    expect(await holder.finish()).toMatchObject({ code: 0 })
    expect(await run([file, '--resume', id], 'after\n', { env: env() })).toMatchObject({ code: 0, stdout: 'echo: after\n' })
    expect(turns(await events(schema, id))).toEqual([1, 2, 3])
  })
})
