import { execFile } from 'node:child_process'
import { copyFile, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, tempDir, type BinResult } from '../setup.ts'

// Recorded with the real keepalive (the spine, the Anthropic adapter, the emulator on a virtual clock; model
// claude-opus-5, idleLimitMs 30 min): turns after waits of 6 min (one ping), 12 min (two) and 3 h (six pings
// up to the idle bound, then the prefix expired).
const FIXTURE = new URL('../fixtures/keepalive.jsonl', import.meta.url)

function bin(args: string[], cwd: string): Promise<BinResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, DSH_LOG_LEVEL: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (error as { code?: number }).code ?? null : 0, stdout, stderr })
    })
  })
}

describe('dsh-prompt view: the keepalive', () => {
  it('shows the pings, what they cost, the waits they kept warm and what that saved', async () => {
    const dir = await tempDir()
    await copyFile(FIXTURE, join(dir, 'keepalive.jsonl'))
    const text = await bin(['view', 'keepalive.jsonl'], dir)
    expect(text.code).toBe(0)
    // 9 pings of about 1,560 tokens read at $0.50, the one uncached token at $5 and 3 output tokens at $25 per million
    // each; two waits kept warm, 1,544 and 1,559 tokens at $6.25 - $0.50 per million
    const line = 'keepalive: 9 ping(s) costing $0.0078; 2 wait(s) kept warm past the cache lifetime, saving $0.0178; net $0.0101'
    expect(text.stdout.split('\n')[3]).toBe(line)
    expect(await readFile(join(dir, 'keepalive.html'), 'utf8')).toContain(`<div class="note" id="keepalive">${line}</div>`)
    const json = await bin(['view', 'keepalive.jsonl', '--json'], dir)
    expect(JSON.parse(json.stdout).keepalive).toEqual({ pings: 9, cost: expect.any(Number), compactedWarm: 0, failed: 0, kept: 2, saved: expect.any(Number) })
  })
})
