import { execFile } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import ToolsStatic from 'dsh-tools-static'

export const BIN = fileURLToPath(new URL('../bin/dsh-prompt', import.meta.url))

export const tempDir = () => mkdtemp(join(tmpdir(), 'dsh-prompt-'))

export interface BinResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the real bin as a child process. */
export function runBin(args: string[], cwd: string): Promise<BinResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, DSH_LOG_LEVEL: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (error as { code?: number }).code ?? null : 0, stdout, stderr })
    })
  })
}

export interface StaticTool {
  name: string
  description?: string
  delayMs?: number
  parameters?: object
}

/** One `dsh-tools-static` entry. */
export const staticEntry = (id: string, tools: StaticTool[]) => ({
  id,
  name: 'dsh-tools-static',
  config: { tools: tools.map((tool) => ({ description: `${tool.name} things.`, ...tool })) },
})

/**
 * The spine entry, with sessions in `./s` next to the app file and a fixed cwd, and without the harness's `agent`
 * tool (on by default; these tests place and explain their own tools; examples/tests inspects an app with it).
 */
export const spineEntry = (config: Record<string, unknown> = {}) => ({
  id: 'spine',
  name: 'dsh-harness',
  config: { persistenceRoot: './s', cwd: '/srv/project', persona: 'You review code in {{cwd}}.', agentTool: false, ...config },
})

/** Writes an app file (JSON is valid YAML) into `dir`; returns its file name. */
export async function writeApp(dir: string, fileName: string, entries: object[]): Promise<string> {
  await writeFile(join(dir, fileName), JSON.stringify(entries, null, 2))
  return fileName
}

/** Writes the plugin module `file` into `dir`: named `name`, injecting `inject`, `apply(ctx)` running `body`. */
export async function writePlugin(dir: string, file: string, name: string, inject: string[], body: string): Promise<void> {
  const source = [`export const name = ${JSON.stringify(name)}`, `export const inject = ${JSON.stringify(inject)}`, `export function apply(ctx) {${body}}`]
  await writeFile(join(dir, file), `${source.join('\n')}\n`)
}

/**
 * Records a real session in-process: the spine and tools-static plugins in a Context, one agent, and
 * one turn per prompt. `between[i]` runs before prompt i (e.g. to register another tool).
 */
export async function recordSession(options: {
  root: string
  id: string
  spine: Record<string, unknown>
  tools: StaticTool[]
  prompts: string[]
  between?: ((ctx: Context) => void)[]
}) {
  const ctx = new Context()
  // without the harness's agent tool, as spineEntry: these sessions place their own tools
  const spine = await ctx.plugin(AgentSpine, { persistenceRoot: options.root, agentTool: false, ...options.spine } as any)
  const tools = await ctx.plugin(ToolsStatic, {
    tools: options.tools.map((tool) => ({ description: `${tool.name} things.`, delayMs: 0, ...tool })),
  } as any)
  const agent = await ctx.agentLoop.createAgent({ id: options.id })
  const results = []
  for (const [index, prompt] of options.prompts.entries()) {
    options.between?.[index]?.(ctx)
    results.push(await agent.prompt(prompt))
  }
  await tools.dispose()
  await spine.dispose()
  return { file: join(options.root, `${options.id}.jsonl`), results }
}
