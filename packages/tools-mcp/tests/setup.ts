import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { boot, type BootedApp } from 'dsh-app-boot'
import SystemPrompt from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
import type {} from 'dsh-agent-loop'
import ToolsMcp, { McpService } from '../src/index.ts'

// FiberState.ACTIVE; a const enum in cordis's types, which isolatedModules cannot read across packages
const ACTIVE = 2
const here = dirname(fileURLToPath(import.meta.url))

/** The bin of a published server package, resolved from its own package.json. */
export function publishedBin(pkg: string): string {
  const dir = join(here, '../node_modules', pkg)
  const { bin } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> }
  return join(dir, typeof bin === 'string' ? bin : Object.values(bin)[0]!)
}

export { processAlive, testServer } from '../src/testing.ts'
/** The test server's script (`testing/test-server.mjs`), for a test that runs it by hand. */
export const TEST_SERVER = fileURLToPath(new URL('../testing/test-server.mjs', import.meta.url))
/** One tool the test server lists (`testServer`'s `tools`). */
export type TestTool = NonNullable<Parameters<typeof import('../src/testing.ts').testServer>[0]['tools']>[number]

export const tempDir = (prefix = 'dsh-tools-mcp-') => mkdtemp(join(tmpdir(), prefix))
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `test` every 10 ms until it holds; fails after `ms`. */
export async function until(test: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

/** A root context with the real SystemPrompt, ToolRuntime and `ctx.mcp`, every log line kept as `[level] text`. */
export async function setup() {
  const ctx = new Context()
  const lines: string[] = []
  ctx.logger.exporter({ levels: { default: 3 }, export: (message) => lines.push(`[${message.type}] ${message.args.map(String).join(" ")}`) })
  await ctx.plugin(SystemPrompt, {} as any)
  await ctx.plugin(ToolRuntime, {} as any)
  await ctx.plugin(McpService)
  return { ctx, lines }
}

/** Loads the plugin with an unchecked config; resolves once its startup is over. */
export function loadMcp(ctx: Context, config: unknown) {
  return ctx.plugin(ToolsMcp, config as any)
}

/** Reads the pid a test server recorded at start (the last one, after restarts). */
export async function events(file: string): Promise<any[]> {
  const text = await readFile(file, 'utf8').catch(() => '')
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

/**
 * Boots a real app file (the spine with the offline model, plus `entries`) through `boot()`, sessions
 * persisted in the app's folder.
 */
export async function bootApp(entries: object[], dir?: string): Promise<{ app: BootedApp; dir: string; file: string }> {
  dir ??= await tempDir()
  const file = join(dir, 'app.yml')
  const all = [{ id: 'spine', name: 'dsh-harness', config: { persistenceRoot: './sessions', cwd: '/srv/project', persona: 'Be brief.' } }, ...entries]
  await writeFile(file, JSON.stringify(all, null, 2))
  const app = await boot({ file, resolve: resolvePlugin, logLevel: (process.env.MCP_TEST_LOG as any) ?? 'silent' })
  // The loader may call an entry "loaded" while it still waits for an injected service (tools-mcp waits
  // for the spine's `tools`). The app-level startup barrier of dsh-app-boot makes boot() wait for every
  // entry; where boot() does not yet, the test waits until each entry is active (its apply has resolved).
  await until(() => app.entries.every((entry) => entry.fiber?.state === ACTIVE), 'every entry to start', 30_000)
  return { app, dir, file }
}

/** Plugin names resolved from this package; dsh-tools-mcp itself is this package's source. */
export function resolvePlugin(name: string): string {
  if (name === 'dsh-tools-mcp') return new URL('../src/index.ts', import.meta.url).href
  return import.meta.resolve(name)
}

/** The session log of `id` as written to disk. */
export async function sessionLog(dir: string, id: string): Promise<{ type: string; data: any }[]> {
  const text = await readFile(join(dir, 'sessions', `${id}.jsonl`), 'utf8')
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line))
}
