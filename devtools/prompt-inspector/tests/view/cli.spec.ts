import { execFile } from 'node:child_process'
import { chmod, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { defaultSessionRoot } from 'dsh-session'
import { BIN, tempDir, type BinResult } from '../setup.ts'
import { recordRichSession } from './record.ts'
import { writeLongSession } from './synthetic.ts'
import { writeEmulatedCopy } from './emulated.ts'

/** The real bin in `cwd`, with extra environment variables. */
function bin(args: string[], cwd: string, env: Record<string, string> = {}): Promise<BinResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, DSH_LOG_LEVEL: '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (error as { code?: number }).code ?? null : 0, stdout, stderr })
    })
  })
}

let session: string
beforeAll(async () => { session = (await recordRichSession()).file })

describe('dsh-prompt view', () => {
  it('writes the page next to the working folder by default and says what it holds', async () => {
    const dir = await tempDir()
    await copyFile(session, join(dir, 'rich.jsonl'))
    const { code, stdout, stderr } = await bin(['view', 'rich.jsonl'], dir)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const page = await readFile(join(dir, 'rich.html'), 'utf8')
    expect(page.startsWith('<!doctype html>')).toBe(true)
    expect(stdout.split('\n')).toEqual([
      `wrote ${join(dir, 'rich.html')} (${Buffer.byteLength(page).toLocaleString('en-US')} bytes)`,
      expect.stringMatching(/^session rich\.jsonl: 11 request\(s\) in 10 turn\(s\), 50\.9% cached, 27300 token\(s\) billed without cache$/),
      // beta added, the notes section, and the resume without beta and the notes: three breaks with a changed header
      '4 break(s) (3 by the detector), 3 header change(s), 1 compaction(s), 1 failed turn(s)',
      '',
    ])
  })

  it('says the share is emulated when the log\'s usage came from the offline model', async () => {
    const dir = await tempDir()
    await writeEmulatedCopy(session, join(dir, 'offline.jsonl'))
    const { code, stdout } = await bin(['view', 'offline.jsonl'], dir)
    expect(code).toBe(0)
    expect(stdout.split('\n')[1]).toMatch(/^session offline\.jsonl: 11 request\(s\) in 10 turn\(s\), 50\.9% cached \(emulated\), 27300 token\(s\) billed without cache$/)
    expect(await readFile(join(dir, 'offline.html'), 'utf8')).toMatch(/"emulatedUsage":[1-9]/)
  })

  it('finds a bare session id in the session folder of the working directory', async () => {
    const state = await tempDir()
    const work = await tempDir()
    const root = defaultSessionRoot(work, { XDG_STATE_HOME: state })
    await mkdir(root, { recursive: true })
    await copyFile(session, join(root, 'chat-7.jsonl'))
    const { code, stdout } = await bin(['view', 'chat-7', '--out', 'out.html', '--json'], work, { XDG_STATE_HOME: state })
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({ file: join(work, 'out.html'), breaks: 4, summary: { requests: 11, failedTurns: 1 } })
  })

  it('opens the page with the desktop opener when asked', async () => {
    const dir = await tempDir()
    const tools = await tempDir()
    await writeFile(join(tools, 'xdg-open'), `#!/bin/sh\necho "$1" > "${join(dir, 'opened.txt')}"\n`)
    await chmod(join(tools, 'xdg-open'), 0o755)
    const { code } = await bin(['view', session, '--out', 'page.html', '--open'], dir, { PATH: `${tools}:${process.env.PATH}` })
    expect(code).toBe(0)
    await expect.poll(() => readFile(join(dir, 'opened.txt'), 'utf8').catch(() => ''), { timeout: 5000 }).toBe(`${join(dir, 'page.html')}\n`)
  })

  it('judges the gaps by the cache TTL of the provider profile it is given', async () => {
    const dir = await tempDir()
    await writeLongSession(join(dir, 'long.jsonl'), { requests: 120, tools: 2, changeEvery: 1000 })
    const judged = await bin(['view', 'long.jsonl', '--provider', 'anthropic', '--json'], dir)
    expect(judged.code).toBe(0)
    expect(JSON.parse(judged.stdout).summary.uncached.byCause.ttl_gap).toBeGreaterThan(0)
    // OpenAI's 24 h retention outlasts a 6-minute gap
    const kept = await bin(['view', 'long.jsonl', '--provider', 'openai', '--cache-ttl', '24h', '--json'], dir)
    expect(JSON.parse(kept.stdout).summary.uncached.byCause.ttl_gap).toBe(0)
  })

  it.each([
    ['an unknown provider', ['view', 'x.jsonl', '--provider', 'acme'], /^--provider expects a provider profile, got "acme"; valid: anthropic, openai, deepseek, dashscope, generic$/],
    ['a lifetime the profile does not offer', ['view', 'PLACEHOLDER', '--provider', 'anthropic', '--cache-ttl', '2h'], /^--cache-ttl: cacheTtl "2h", which is not a lifetime of the anthropic profile; valid: 5m, 1h$/],
    ['a lifetime without a provider', ['view', 'x.jsonl', '--cache-ttl', '1h'], /^--cache-ttl needs --provider/],
    ['a missing log', ['view', 'gone.jsonl'], /^gone\.jsonl: cannot read session log: ENOENT/],
    ['an unknown session id', ['view', 'nobody'], /^session "nobody" \(looked for .*nobody\.jsonl\): cannot read session log/],
    ['a page that cannot be written', ['view', 'PLACEHOLDER', '--out', 'no/such/dir/page.html'], /page\.html: cannot write the page: ENOENT/],
  ])('exits 1 with one line for %s', async (_, args, message) => {
    const dir = await tempDir()
    const { code, stdout, stderr } = await bin(args.map((arg) => (arg === 'PLACEHOLDER' ? session : arg)), dir)
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(stderr.trimEnd()).toMatch(message)
  })
})
