import { spawn } from 'node:child_process'
import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, appYaml, run, sessionEvents, writeApp } from './setup.ts'

/** Runs the bin with `input` piped in, reading its stdout only after `delayMs`, like a slow consumer. */
function runSlowReader(args: string[], input: string, delayMs: number): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, DSH_LOG_LEVEL: '' } })
  child.stdout.pause()
  const chunks: Buffer[] = []
  child.stderr.resume()
  setTimeout(() => child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk)).resume(), delayMs)
  child.stdin.end(input)
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks).toString('utf8') })))
}

describe('piped output', () => {
  it('delivers a 1 MB answer and the answer after it to a slow reader before exiting', async () => {
    // a 1 MB prompt is ~250,000 estimated tokens: a model whose window holds it (the default's 128,000 would refuse it)
    const { file } = await writeApp(appYaml({ model: 'scripted-wide' })
      + '- { id: wide, name: dsh-llm-scripted, config: { models: [{ id: scripted-wide, contextWindow: 1000000 }] } }\n')
    const big = 'x'.repeat(1_000_000)
    const result = await runSlowReader([file], `${big}\nsecond\n`, 800)
    expect(result.code).toBe(0)
    expect(result.stdout.length).toBe(`echo: ${big}\necho: second\n`.length)
    expect(result.stdout.endsWith('\necho: second\n')).toBe(true)
  })

  it('ends quietly when its reader closes stdout early, with the session log balanced', async () => {
    const { file, sessions } = await writeApp(appYaml({}))
    const child = spawn(process.execPath, [BIN, file], { env: { ...process.env, DSH_LOG_LEVEL: '' } })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    // like `| head -c 100`: take the first bytes, then close the pipe while lines keep coming
    child.stdout.once('data', () => child.stdout.destroy())
    child.stdin.on('error', () => {})
    for (let line = 0; line < 3000; line++) child.stdin.write(`line ${line}\n`)
    child.stdin.end()
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const events = await sessionEvents(sessions)
    const starts = events.filter((event) => event.type === 'turn/start').length
    expect(events.filter((event) => event.type === 'turn/end').length).toBe(starts)
    expect(events.at(-1)!.type).toBe('turn/end')
  })
})

describe('piped exit status', () => {
  it('exits 1 with a one-line summary when every turn failed', async () => {
    const { file } = await writeApp(appYaml({ toolOrder: ['missing', '<unlisted-tools>'] }))
    const result = await run([file], 'one\ntwo\n')
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr.split('\n').at(-2)).toBe('2 of 2 turns failed')
  })

  it('exits 0 when every turn succeeded, and /commands are not turns', async () => {
    const { file } = await writeApp(appYaml({}))
    const result = await run([file], '/tools\none\n')
    expect(result).toMatchObject({ code: 0, stderr: '' })
  })
})

describe('an unusable persistenceRoot', () => {
  it('fails the boot with one line naming the file, the entry and the folder, no stack', async () => {
    const { file, dir } = await writeApp(appYaml({ persistenceRoot: './blocker' }))
    await writeFile(join(dir, 'blocker'), 'a file, not a folder')
    const result = await run([file], 'hello\n')
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: entry "app" \\(dsh-stdio-demo\\): cannot open a session \\(persistenceRoot ".*blocker"\\): ENOTDIR[^\\n]*\\n$`))
    expect(await readdir(dir)).toEqual(['app.yml', 'blocker'])
  })
})
