import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { round } from './measure.ts'

const BIN = fileURLToPath(new URL('../../../apps/stdio-demo/bin/dsh-stdio-demo', import.meta.url))
const ROUNDS = 5

/** Milliseconds from spawning `args` until its stdout contains `until` (or until it exits, without `until`). */
function time(args: string[], input: string, until?: string, cwd?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(process.execPath, args, { cwd, stdio: ['pipe', 'pipe', 'ignore'] })
    let out = ''
    let done = false
    const finish = () => {
      if (done) return
      done = true
      resolve(performance.now() - start)
      child.kill()
    }
    child.stdout.on('data', (chunk) => {
      out += chunk
      if (until && out.includes(until)) finish()
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (!until) finish()
      else if (!done) reject(new Error(`${args.join(' ')} exited ${code} before printing ${JSON.stringify(until)}`))
    })
    child.stdin.end(input)
  })
}

/** Cold start of the stdio executable to its first answer, against `node -e 0`, alternated round by round. */
export async function run(): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-boot-bench-'))
  const app = join(dir, 'cordis.yml')
  await writeFile(app, '- id: app\n  name: dsh-stdio-demo\n  config:\n    persistenceRoot: ./sessions\n')
  const node: number[] = []
  const demo: number[] = []
  try {
    for (let i = 0; i < ROUNDS + 1; i++) {
      const a = await time(['-e', '0'], '')
      const b = await time([BIN, app], 'hi\n', 'echo: hi', dir)
      if (i === 0) continue // the first round warms the disk cache and tsx's transform cache
      node.push(a)
      demo.push(b)
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]
  return { boot_stdio_ms: round(median(demo), 1), boot_stdio_over_node: round(median(demo) / median(node), 2) }
}
