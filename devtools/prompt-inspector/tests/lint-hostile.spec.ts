import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, runBin, staticEntry, tempDir, writeApp, writePlugin, type BinResult } from './setup.ts'

const LINE_MAX_BYTES = 4096
const READ_FILE = staticEntry('tools', [{ name: 'read_file' }])
/** The spine (scripted-echo, a 128,000-token window), sessions in `root`, and `config`. */
const spine = (root: string, config: Record<string, unknown> = {}) => ({
  id: 'spine', name: 'dsh-harness', config: { persistenceRoot: join(root, 'sessions'), cwd: '/srv/project', persona: 'You review code.', agentTool: false, ...config },
})
const longest = (text: string) => Math.max(...text.split('\n').map((line) => Buffer.byteLength(line)))

describe('dsh-prompt lint under hostile app files', () => {
  it('prints a toolOrder of 10,000 unknown names as one line of at most 4 KiB that counts the names left out', async () => {
    const dir = await tempDir()
    const names = Array.from({ length: 10_000 }, (_, index) => `unknown_tool_${index}`)
    await writeApp(dir, 'app.yml', [spine(dir, { toolOrder: [...names, '<unlisted-tools>'] }), READ_FILE])
    const { code, stdout, stderr } = await runBin(['lint', 'app.yml'], dir)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    const lines = stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(Buffer.byteLength(lines[0]!)).toBeLessThanOrEqual(LINE_MAX_BYTES)
    expect(lines[0]).toMatch(/^toolOrder lists unregistered tools "unknown_tool_0", "unknown_tool_1", .*, … and (\d+) more; known tools: read_file$/)
    const shown = (lines[0]!.match(/"unknown_tool_\d+"/g) ?? []).length
    expect(lines[0]).toContain(`… and ${10_000 - shown} more;`)
  })

  it('quotes a 200,000-character toolOrder entry by its start and its length, in one line of at most 4 KiB', async () => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [spine(dir, { toolOrder: ['x'.repeat(200_000) + '*inside'] }), READ_FILE])
    const { code, stderr } = await runBin(['lint', 'app.yml'], dir)
    expect(code).toBe(2)
    expect(stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(longest(stderr)).toBeLessThanOrEqual(LINE_MAX_BYTES)
    expect(stderr).toMatch(/^app\.yml: entry "spine" \(dsh-harness\): failed to start: toolOrder\[0\] is "x+…" \(200007 characters\): "\*" may only end an entry/)
  })

  it('cuts a finding line past 4 KiB (a volatile variable of 2,000 three-byte characters) and counts the bytes left out', async () => {
    const dir = await tempDir()
    await writePlugin(dir, 'wide.mjs', 'wide-note', ['systemPrompt'], `
      let calls = 0
      ctx.systemPrompt.variable('note', () => '変'.repeat(2000) + String(++calls))
      ctx.systemPrompt.section({ name: 'repo:note', order: 20, text: 'Note: {{note}}' })`)
    await writeApp(dir, 'app.yml', [spine(dir), READ_FILE, { id: 'wide', name: './wide.mjs' }])
    const { code, stdout } = await runBin(['lint', 'app.yml'], dir)
    expect(code).toBe(1)
    const line = stdout.split('\n').find((text) => text.includes('prompt variable {{note}} has another value'))!
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(LINE_MAX_BYTES)
    expect(line).toMatch(/ … \(\d+ more bytes\)$/)
    expect(longest(stdout)).toBeLessThanOrEqual(LINE_MAX_BYTES)
  })

  it('reports a 5 MB persona, a prefix that can never fit the model\'s window, instead of "no findings"', async () => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [spine(dir, { persona: 'Review the code carefully. '.repeat(200_000) }), READ_FILE])
    const { code, stdout, stderr } = await runBin(['lint', 'app.yml'], dir)
    expect(stderr).toBe('')
    expect(code).toBe(1)
    expect(stdout).not.toContain('no findings')
    const [, tokens] = /\n {2}prefix-over-window {2}\[model scripted-echo\]\n {4}the prefix is about (\d+) tokens \(\d+ bytes at ~4 a token\), more than the 128000-token context window of scripted-echo\n/.exec(stdout)!
    expect(Number(tokens)).toBeGreaterThan(1_300_000)
    expect(longest(stdout)).toBeLessThanOrEqual(LINE_MAX_BYTES)
  })

  it('lints an app file given as a FIFO (<(cat app.yml)), which can be read only once', { timeout: 60_000 }, async () => {
    const dir = await tempDir()
    const fifo = join(dir, 'app.fifo')
    await new Promise<void>((resolve, reject) => execFile('mkfifo', [fifo], (error) => error ? reject(error) : resolve()))
    const text = JSON.stringify([spine(dir), READ_FILE])
    // the writer opens the FIFO once and closes it after one copy, as `<(cat app.yml)` does
    const writing = writeFile(fifo, text)
    const result = await new Promise<BinResult>((resolve) => {
      execFile(process.execPath, [BIN, 'lint', fifo], { cwd: dir, timeout: 40_000, env: { ...process.env, DSH_LOG_LEVEL: '' } }, (error, stdout, stderr) => {
        resolve({ code: error ? (error as { code?: number }).code ?? null : 0, stdout, stderr })
      })
    })
    await writing
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('checked: 2 boots, 3 assemblies')
    expect(result.stdout).toContain('no findings')
  })
})
