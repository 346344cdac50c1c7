import { readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { emulatedAppFile, startEmulator } from 'dsh-llm-testing/emulator'
import { appYaml, run, writeApp } from './setup.ts'

const emulators: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close()
})

const env = { CACHE_TEST_KEY: 'sk-loopback', DSH_LOG_LEVEL: 'error' }

async function logOf(sessions: string, id: string): Promise<{ type: string; data: any }[]> {
  return (await readFile(join(sessions, `${id}.jsonl`), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line))
}

async function storedIds(sessions: string): Promise<string[]> {
  return (await readdir(sessions)).filter((name) => name.endsWith('.jsonl')).map((name) => name.slice(0, -'.jsonl'.length)).sort()
}

describe('/side in piped mode (the real bin)', () => {
  it('answers on stdout from a child session and leaves the main request bytes as they would have been without it', { timeout: 90_000 }, async () => {
    // one emulator per run, so neither run's cache serves the other
    const plainEmulator = await startEmulator(['cache-model'])
    const emulator = await startEmulator(['cache-model'])
    emulators.push(plainEmulator, emulator)
    const { file, dir, sessions } = await writeApp(emulatedAppFile({ app: 'dsh-stdio-demo', origin: plainEmulator.origin, model: 'cache-model', tools: ['alpha', 'beta'] }))

    // without the side question: two main requests
    const plain = await run([file], 'the first question\nthe second question\n', { env })
    expect(plain).toMatchObject({ code: 0, stdout: 'echo: the first question\necho: the second question\n' })
    const without = plainEmulator.received.map((request) => request.body)
    expect(without).toHaveLength(2)

    // with it, in a new session of the same app: main, side, main
    const [plainId] = await storedIds(sessions)
    const sidedFile = join(dir, 'sided.yml')
    await writeFile(sidedFile, emulatedAppFile({ app: 'dsh-stdio-demo', origin: emulator.origin, model: 'cache-model', tools: ['alpha', 'beta'] }))
    const sided = await run([sidedFile], 'the first question\n/side what did I ask first?\nthe second question\n', { env })
    expect(sided.code).toBe(0)
    expect(sided.stdout).toBe('echo: the first question\necho: what did I ask first?\necho: the second question\n')
    const ids = (await storedIds(sessions)).filter((id) => id !== plainId)
    const main = ids.find((id) => !id.includes('~'))!
    expect(ids).toEqual([main, `${main}~1`])
    expect(sided.stderr).toBe(`(side answer from session ${main}~1; the main conversation is untouched)\n`)

    const bodies = emulator.received.map((request) => request.body)
    expect(bodies).toHaveLength(3)
    // the main conversation's requests are the very bytes of the run without the side question
    expect(bodies[0]).toBe(without[0])
    expect(bodies[2]).toBe(without[1])
    // the side request read the whole main request before it from the cache (less its last, partial block)
    const [first, side] = emulator.ledger
    expect(side!.cachedTokens).toBeGreaterThan(first!.promptTokens - 64)
    expect(side!.cachedTokens).toBe(side!.idealTokens)
    expect(emulator.problems).toEqual([])

    // linked both ways; the main log holds no message of the side question
    const parentLog = await logOf(sessions, main)
    expect(parentLog.filter((event) => event.type === 'fork/child').map((event) => event.data)).toEqual([
      expect.objectContaining({ child: `${main}~1`, mode: 'side', description: 'what did I ask first?' }),
    ])
    expect(JSON.stringify(parentLog.filter((event) => event.type !== 'fork/child'))).not.toContain('what did I ask first?')
    expect((await logOf(sessions, `${main}~1`))[0]).toMatchObject({ type: 'fork/parent', data: { parent: main, mode: 'side' } })
  })

  it('lists the side session under its parent, resumes either, and a resumed parent numbers its next child after the kept ones', { timeout: 90_000 }, async () => {
    const { file, sessions } = await writeApp(appYaml({}))
    expect(await run([file], 'hello there\n/side first aside\n')).toMatchObject({ code: 0, stdout: 'echo: hello there\necho: first aside\n' })
    const [main] = await storedIds(sessions)
    expect(await run([file], 'another session\n')).toMatchObject({ code: 0 })
    const other = (await storedIds(sessions)).find((id) => id !== main && id !== `${main}~1`)!

    const listed = (await run([file, '--sessions'], '')).stdout.split('\n')
    // newest root first; the child right under its parent, indented, titled by its mode and question
    expect(listed[0]).toMatch(new RegExp(`^${other}  \\S+  1 turn  "another session"$`))
    expect(listed[1]).toMatch(new RegExp(`^${main}  \\S+  1 turn  "hello there"$`))
    expect(listed[2]).toMatch(new RegExp(`^  ${main}~1  \\S+  2 turns  side: "first aside"$`))

    // the child resumes from its own log: its history is the parent's and its own answer
    const child = await run([file, '--resume', `${main}~1`], 'and in the side session?\n')
    expect(child).toMatchObject({ code: 0, stdout: 'echo: and in the side session?\n' })
    // the parent resumes with its child kept; a new side question is ~2
    expect(await run([file, '--resume', main!], '/side second aside\n')).toMatchObject({ code: 0, stdout: 'echo: second aside\n' })
    expect(await storedIds(sessions)).toEqual([main, `${main}~1`, `${main}~2`, other].sort())
    const childLog = await logOf(sessions, `${main}~1`)
    expect(childLog.filter((event) => event.type === 'user/message').map((event) => event.data.text)).toEqual(['hello there', 'first aside', 'and in the side session?'])
    const again = (await run([file, '--sessions'], '')).stdout.split('\n').filter((line) => line.startsWith(`  ${main}~`))
    expect(again.map((line) => line.trim().split('  ')[0])).toEqual([`${main}~1`, `${main}~2`])
  })

  it('refuses /side without a question, and --resume of an unknown child id, in one line each', { timeout: 60_000 }, async () => {
    const { file, sessions } = await writeApp(appYaml({}))
    const asked = await run([file], '/side\n/side   \nstill here\n')
    expect(asked.code).toBe(0)
    expect(asked.stdout).toBe('echo: still here\n')
    const refusal = 'error: /side needs a question, e.g. "/side what does this function return?"; the main conversation is not touched'
    expect(asked.stderr).toBe(`${refusal}\n${refusal}\n`)
    const [main] = await storedIds(sessions)
    expect(await storedIds(sessions)).toEqual([main])
    const unknown = await run([file, '--resume', `${main}~7`], 'hi\n')
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: `--resume: no stored session "${main}~7"; --sessions lists the 1 there are\n` })
  })
})
