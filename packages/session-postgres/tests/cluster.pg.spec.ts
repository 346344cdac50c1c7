import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { startTestCluster } from '../src/testing/index.ts'

// the built helper, as a benchmark or another package's tests import it
const HELPER = fileURLToPath(new URL('../dist/testing/index.js', import.meta.url))

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.end()
    return true
  } catch {
    return false
  }
}

describe('the throwaway test cluster', () => {
  it('stops when the process that started it is killed with SIGKILL', { timeout: 120_000 }, async () => {
    const starter = spawn(process.execPath, ['--input-type=module', '-e', [
      `const { startTestCluster } = await import(${JSON.stringify(HELPER)})`,
      'delete process.env.DSH_TEST_PG_URL',
      'const cluster = await startTestCluster()',
      'process.stdout.write(JSON.stringify({ url: cluster.url }) + "\\n")',
      'setInterval(() => {}, 1000)',
    ].join('\n')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, DSH_TEST_PG_URL: '' } })
    const line = await new Promise<string>((resolve, reject) => {
      let out = ''
      starter.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk
        if (out.includes('\n')) resolve(out.trim())
      })
      starter.on('exit', (code) => reject(new Error(`the starter exited (${code}) before the cluster was up`)))
    })
    const { url } = JSON.parse(line) as { url: string }
    expect(await answers(url)).toBe(true)
    const { port } = new URL(url)

    starter.kill('SIGKILL')
    const deadline = Date.now() + 30_000
    while (await answers(url)) {
      if (Date.now() > deadline) throw new Error(`the cluster on port ${port} outlived the process that started it`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(await answers(url)).toBe(false)
  })

  it('takes max_connections, refuses a bad one in one line, and restarts keeping its data while ending open connections', { timeout: 120_000 }, async () => {
    await expect(startTestCluster({ maxConnections: 5 })).rejects.toThrow('startTestCluster: maxConnections must be a whole number from 10 to 10000, got 5')
    if (process.env.DSH_TEST_PG_URL) return // a given server is neither configured nor restarted here
    const cluster = (await startTestCluster({ maxConnections: 37 }))!
    try {
      const held = new pg.Client({ connectionString: cluster.url })
      held.on('error', () => {})
      await held.connect()
      expect((await held.query('SHOW max_connections')).rows[0].max_connections).toBe('37')
      await held.query('CREATE TABLE kept (n integer); INSERT INTO kept VALUES (1)')
      await cluster.restart!()
      await expect(held.query('SELECT 1')).rejects.toThrow()
      const fresh = new pg.Client({ connectionString: cluster.url })
      await fresh.connect()
      expect((await fresh.query('SELECT n FROM kept')).rows).toEqual([{ n: 1 }])
      expect((await fresh.query('SHOW max_connections')).rows[0].max_connections).toBe('37')
      await fresh.end()
    } finally {
      await cluster.stop()
    }
  })
})
