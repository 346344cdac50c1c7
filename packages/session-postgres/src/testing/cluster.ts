import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, promises as fs, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { watchCluster } from './watchdog.ts'

const run = promisify(execFile)

/** A PostgreSQL server for tests and benchmarks. */
export interface TestCluster {
  /** postgres://user:password@127.0.0.1:port/postgres */
  url: string
  /** True when this process started it (and `stop()` removes it). */
  owned: boolean
  /**
   * Restarts the server (`pg_ctl restart`, fast mode: open connections are ended, the data stays) and
   * resolves once it accepts connections again. Undefined for a server given by `DSH_TEST_PG_URL`.
   */
  restart?(): Promise<void>
  stop(): Promise<void>
}

/** The folder holding initdb and pg_ctl: $DSH_PG_BIN, else the newest /usr/lib/postgresql/<n>/bin. */
export function findPgBin(): string | undefined {
  const candidates: string[] = []
  if (process.env.DSH_PG_BIN) candidates.push(process.env.DSH_PG_BIN)
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root).filter(name => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))
    candidates.push(...versions.map(version => join(root, version, 'bin')))
  }
  return candidates.find(dir => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')))
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/**
 * `DSH_TEST_PG_URL` when set; otherwise a throwaway cluster (initdb + pg_ctl) on a temp folder and a free
 * loopback port, with password (SCRAM) authentication. Root cannot run postgres, so as root it runs as
 * the `postgres` system user. Undefined when no server binaries are installed. A watchdog process stops the
 * server and removes its folder when this process ends without `stop()` (a crash, a SIGKILL, a runner that
 * exits before its teardown finished). `fsync` defaults to off
 * (tests kill clients, never the server); benchmarks turn it on to compare durable with durable.
 * `maxConnections` (default 200) is the server's `max_connections`: one per open session, plus each store's pool.
 */
export async function startTestCluster(options: { fsync?: boolean; maxConnections?: number } = {}): Promise<TestCluster | undefined> {
  const maxConnections = options.maxConnections ?? 200
  if (!Number.isInteger(maxConnections) || maxConnections < 10 || maxConnections > 10_000) {
    throw new Error(`startTestCluster: maxConnections must be a whole number from 10 to 10000, got ${maxConnections}`)
  }
  const given = process.env.DSH_TEST_PG_URL
  if (given) return { url: given, owned: false, stop: async () => {} }
  const bin = findPgBin()
  if (!bin) return undefined
  const asRoot = process.getuid?.() === 0
  const dir = await fs.mkdtemp(join(tmpdir(), 'dsh-pg-'))
  const as = (command: string, args: string[]) => asRoot
    ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], { cwd: dir })
    : run(join(bin, command), args, { cwd: dir })
  const password = randomBytes(12).toString('hex')
  const user = 'dsh_test'
  await fs.writeFile(join(dir, 'pw'), password + '\n')
  if (asRoot) await run('chown', ['-R', 'postgres', dir])
  const data = join(dir, 'data')
  await as('initdb', ['-D', data, '-U', user, '--auth=scram-sha-256', `--pwfile=${join(dir, 'pw')}`, '-E', 'UTF8', '--no-locale', ...(options.fsync ? [] : ['--no-sync'])])
  const port = await freePort()
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync ? 'on' : 'off'} -c max_connections=${maxConnections}`
  // started before the server, so no moment is left in which this process could die and leave it running
  const dismiss = watchCluster(join(data, 'postmaster.pid'), dir)
  try {
    await as('pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', '-t', '60', 'start'])
  } catch (error) {
    dismiss()
    await fs.rm(dir, { recursive: true, force: true })
    throw error
  }
  return {
    url: `postgres://${user}:${password}@127.0.0.1:${port}/postgres`,
    owned: true,
    async restart() {
      await as('pg_ctl', ['-D', data, '-m', 'fast', '-l', join(dir, 'log'), '-w', '-t', '60', 'restart'])
    },
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {})
      await fs.rm(dir, { recursive: true, force: true })
      dismiss()
    },
  }
}
