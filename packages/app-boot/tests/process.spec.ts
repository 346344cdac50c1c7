import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { writeApp } from './setup.ts'

const CHILD = fileURLToPath(new URL('./fixtures/main-child.ts', import.meta.url))
const TSX = import.meta.resolve('tsx')

interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs the bin fixture on `file`; when `stopWith` is given, sends it once the app printed "ready". */
function runChild(file: string, options: { stopWith?: NodeJS.Signals; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CHILD, file], {
      env: { ...process.env, DSH_LOG_LEVEL: '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => {
      stderr += chunk
      if (options.stopWith && stderr.includes('ready\n')) child.kill(options.stopWith)
    })
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

describe('an app process', () => {
  it('logs to stderr only, and on SIGTERM disposes its plugins and exits 0', async () => {
    const { file, dir } = await writeApp(`
- { id: logs, name: fixture-logs }
- { id: probe, name: fixture-probe, config: { label: flushed, marker: ./marker.txt, disposeDelayMs: 50 } }
`)
    const run = await runChild(file, { stopWith: 'SIGTERM' })
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('[info] logs: hello from the logs plugin\n')
    expect(run.stderr).toContain('[warn] logs: a warning from the logs plugin\n')
    expect(run.code).toBe(0)
    expect(await readFile(join(dir, 'marker.txt'), 'utf8')).toBe('disposed flushed\n')
  })

  it('also stops cleanly on SIGINT', async () => {
    const { file, dir } = await writeApp('- { id: probe, name: fixture-probe, config: { marker: ./marker.txt } }\n')
    const run = await runChild(file, { stopWith: 'SIGINT' })
    expect(run.code).toBe(0)
    expect(await readFile(join(dir, 'marker.txt'), 'utf8')).toBe('disposed probe\n')
  })

  it('exits 1 with the one-line message of a bad app file', async () => {
    const { file } = await writeApp('- { id: a, name: fixture-record }\n- { id: a, name: fixture-probe }\n')
    const run = await runChild(file)
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(`${file}: entry #2 "a": duplicate id "a" (entry #1 has it too)\n`)
  })

  it('exits 1 with one line and no stack when a plugin throws', async () => {
    const { file } = await writeApp('- { id: t, name: fixture-throws }\n')
    const run = await runChild(file)
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(`${file}: entry "t" (fixture-throws): failed to start: cannot open port 0 (second line)\n`)
  })

  it('shows the stack of a failed plugin at the debug level', async () => {
    const { file } = await writeApp('- { id: t, name: fixture-throws }\n')
    const run = await runChild(file, { env: { DSH_LOG_LEVEL: 'debug' } })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('[error] throws: Error: cannot open port 0')
    expect(run.stderr).toMatch(/at .*throws\.ts/)
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(`${file}: entry "t" (fixture-throws): failed to start: cannot open port 0 (second line)`)
  })
})
