import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { round } from './measure.ts'

const BIN = fileURLToPath(new URL('../../../apps/stdio-demo/bin/dsh-stdio-demo', import.meta.url))
const ROUNDS = 5

/** Upper bounds for the keys of this module. */
export const targets = { boot_stdio_over_deps_import: 2, first_answer_over_node: 3 }

/** The middle value of `values` (the upper one of an even count). */
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!

/** Alternated rounds of the first-answer figure (after one warm-up round): under load it moves a lot. */
const FIRST_ANSWER_ROUNDS = 15

/**
 * `echo hi | dsh-stdio-demo` as a user runs it (the real bin, its own default app file with the demo tools and
 * the prompt-cache entry) until it prints `echo: hi`, against `node -e 0`, alternated. It runs in an empty
 * temporary folder with XDG_STATE_HOME pointed into it, so the session it writes stays there.
 */
async function firstAnswer(dir: string): Promise<Record<string, number>> {
  const env = { ...process.env, XDG_STATE_HOME: join(dir, 'state') }
  const node: number[] = []
  const demo: number[] = []
  for (let i = 0; i < FIRST_ANSWER_ROUNDS + 1; i++) {
    const a = await time(['-e', '0'], '')
    const b = await time([BIN], 'hi\n', 'echo: hi', dir, env)
    if (i === 0) continue
    node.push(a)
    demo.push(b)
  }
  return {
    first_answer_ms: round(median(demo), 1),
    first_answer_node_ms: round(median(node), 1),
    first_answer_over_node: round(median(demo) / median(node), 2),
  }
}

/** Milliseconds from spawning `args` until its stdout contains `until` (or until it exits, without `until`). */
function time(args: string[], input: string, until?: string, cwd?: string, env?: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] })
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
      if (!until) code === 0 ? finish() : reject(new Error(`${args.join(' ')} exited ${code}`))
      else if (!done) reject(new Error(`${args.join(' ')} exited ${code} before printing ${JSON.stringify(until)}`))
    })
    child.stdin.end(input)
  })
}

// Resolution hook for one discovery run: records every bare specifier that workspace code (anything
// outside node_modules) resolves into node_modules, i.e. the entry points of the third-party packages.
const HOOK = `
import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  const fromWorkspace = context.parentURL && !context.parentURL.includes('/node_modules/')
  if (fromWorkspace && result.url.includes('/node_modules/')) appendFileSync(process.env.DSH_BENCH_DEPS, result.url + '\\n')
  return result
}
`

/**
 * The third-party modules the demo really imports on its way to the first answer, found by running it
 * once with a resolution hook; the baseline imports exactly these with plain `node`, nothing of ours.
 */
async function runtimeDependencies(dir: string, app: string): Promise<string[]> {
  const hook = join(dir, 'deps-hook.mjs')
  const register = join(dir, 'deps-register.mjs')
  const list = join(dir, 'deps.txt')
  await writeFile(hook, HOOK)
  await writeFile(register, `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(hook).href)})\n`)
  await writeFile(list, '')
  await time(['--import', pathToFileURL(register).href, BIN, app], 'hi\n', 'echo: hi', dir, { ...process.env, DSH_BENCH_DEPS: list })
  const urls = [...new Set((await readFile(list, 'utf8')).split('\n').filter(Boolean))]
  if (urls.length === 0) throw new Error('the discovery run of dsh-stdio-demo recorded no third-party imports')
  return urls
}

/**
 * Cold start of the stdio executable to its first answer, against `node -e 0` and against `node` importing
 * the demo's third-party runtime dependencies only, alternated round by round.
 */
export async function run(): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-boot-bench-'))
  const app = join(dir, 'cordis.yml')
  await writeFile(app, '- id: app\n  name: dsh-stdio-demo\n  config:\n    persistenceRoot: ./sessions\n')
  const node: number[] = []
  const deps: number[] = []
  const demo: number[] = []
  let count = 0
  let first: Record<string, number> = {}
  try {
    first = await firstAnswer(dir)
    const urls = await runtimeDependencies(dir, app)
    count = urls.length
    const importDeps = ['--input-type=module', '-e', urls.map((url) => `import ${JSON.stringify(url)}`).join('\n')]
    for (let i = 0; i < ROUNDS + 1; i++) {
      const a = await time(['-e', '0'], '')
      const b = await time(importDeps, '')
      const c = await time([BIN, app], 'hi\n', 'echo: hi', dir)
      if (i === 0) continue // the first round warms the disk cache
      node.push(a)
      deps.push(b)
      demo.push(c)
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  return {
    ...first,
    boot_stdio_ms: round(median(demo), 1),
    boot_stdio_over_node: round(median(demo) / median(node), 2),
    boot_deps_import_ms: round(median(deps), 1),
    boot_deps_modules: count,
    boot_stdio_over_deps_import: round(median(demo) / median(deps), 2),
  }
}
