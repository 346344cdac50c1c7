import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'

/** The real executable, run as users run it. */
export const BIN = fileURLToPath(new URL('../bin/dsh-stdio-demo', import.meta.url))

export interface Exit {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Piped input where every one of `turns` turns failed: exit 1, nothing on stdout, one stderr line per turn
 * matching `line`, then the summary line.
 */
export function expectEveryTurnFailed(exit: Exit, turns: number, line: RegExp): void {
  expect(exit.code).toBe(1)
  expect(exit.stdout).toBe('')
  const lines = exit.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(turns + 1)
  for (const failed of lines.slice(0, turns)) expect(failed).toMatch(line)
  expect(lines[turns]).toBe(`${turns} of ${turns} turns failed`)
}

export function tempDir(prefix = 'dsh-stdio-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix))
}

/**
 * Writes `app.yml` in a fresh folder. Its `persistenceRoot: ./sessions` resolves against that folder,
 * so every run logs to `<dir>/sessions`.
 */
export async function writeApp(yaml: string): Promise<{ file: string; dir: string; sessions: string }> {
  const dir = await tempDir()
  const file = join(dir, 'app.yml')
  await writeFile(file, yaml)
  return { file, dir, sessions: join(dir, 'sessions') }
}

/** The app entry and one dsh-tools-static entry per tool, as YAML. */
export function appYaml(app: Record<string, unknown>, tools: { name: string; delayMs?: number; afterReadyMs?: number; result?: string }[] = []): string {
  const lines = [`- { id: app, name: dsh-stdio-demo, config: ${JSON.stringify({ persistenceRoot: './sessions', ...app })} }`]
  for (const tool of tools) {
    const entry = { description: `The ${tool.name} tool.`, ...tool }
    lines.push(`- { id: tools-${tool.name}, name: dsh-tools-static, config: { tools: [${JSON.stringify(entry)}] } }`)
  }
  return `${lines.join('\n')}\n`
}

/** A running bin with piped stdio: send lines, read stdout line by line, then end stdin and await the exit. */
export class App {
  stdout = ''
  stderr = ''
  private read = 0
  private waiters: (() => void)[] = []
  private readonly exited: Promise<Exit>
  private readonly child: ChildProcessWithoutNullStreams

  constructor(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
    this.child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, DSH_LOG_LEVEL: '', DSH_STARTUP_TIMEOUT_MS: '', ...options.env },
    })
    const wake = () => { for (const waiter of this.waiters.splice(0)) waiter() }
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => { this.stdout += chunk; wake() })
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => { this.stderr += chunk; wake() })
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject)
      this.child.on('close', (code) => { wake(); resolve({ code, stdout: this.stdout, stderr: this.stderr }) })
    })
  }

  /** The process id of the running bin. */
  get pid(): number | undefined {
    return this.child.pid
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`)
  }

  /** Resolves once `test()` holds; fails when the process exits first. */
  async until(test: () => boolean, what: string): Promise<void> {
    while (!test()) {
      if (this.child.exitCode !== null) throw new Error(`the app exited before ${what}; stderr:\n${this.stderr}`)
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** The next complete stdout line, without its newline. */
  async nextLine(): Promise<string> {
    await this.until(() => this.stdout.indexOf('\n', this.read) >= 0, 'printing a line')
    const end = this.stdout.indexOf('\n', this.read)
    const line = this.stdout.slice(this.read, end)
    this.read = end + 1
    return line
  }

  /** Asks `/tools` until at least `count` tools are registered, so the next turn sees them all. */
  async waitForTools(count: number): Promise<void> {
    for (;;) {
      this.send('/tools')
      const head = await this.nextLine()
      const listed = head === 'no tools' ? 0 : Number.parseInt(head, 10)
      for (let i = 0; i < listed; i++) await this.nextLine()
      if (listed >= count) return
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /** Sends `signal` to the process and waits for it to exit. */
  stop(signal: NodeJS.Signals): Promise<Exit> {
    this.child.kill(signal)
    return this.exited
  }

  /** Ends stdin and waits for the process to exit. */
  finish(): Promise<Exit> {
    this.child.stdin.end()
    return this.exited
  }
}

/** Runs the bin with all of `input` piped in at once. */
export function run(args: string[], input: string, options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Exit> {
  const app = new App(args, options)
  app.send(input.replace(/\n$/, ''))
  return app.finish()
}

export interface LoggedEvent {
  seq: number
  type: string
  data: any
}

/** The events of the one session log in `root`. */
export async function sessionEvents(root: string): Promise<LoggedEvent[]> {
  const files = (await readdir(root)).filter((name) => name.endsWith('.jsonl'))
  if (files.length !== 1) throw new Error(`expected one session log in ${root}, found ${files.join(', ') || 'none'}`)
  const text = await readFile(join(root, files[0]), 'utf8')
  return text.trimEnd().split('\n').map((line) => JSON.parse(line))
}

export function headers(events: LoggedEvent[]): any[] {
  return events.filter((event) => event.type === 'request/header').map((event) => event.data)
}
