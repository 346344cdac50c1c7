import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PACKAGE = join(ROOT, 'packages', 'system-prompt')

// A host app as a user would have it: its own cordis and schemastery, and dsh-system-prompt installed as
// what a publish would ship (package.json + dist/, no sources, no node_modules of its own), run by plain
// `node` with no TypeScript loader. The package must find cordis as a peer, from the host's node_modules.
const app = mkdtempSync(join(tmpdir(), 'dsh-plain-node-'))

function setUpApp() {
  const modules = join(app, 'node_modules')
  // the package and the workspace packages it depends on, each as a publish would ship it
  const install = (folder: string) => {
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))
    mkdirSync(join(modules, manifest.name), { recursive: true })
    cpSync(join(folder, 'package.json'), join(modules, manifest.name, 'package.json'))
    cpSync(join(folder, 'dist'), join(modules, manifest.name, 'dist'), { recursive: true })
    for (const [name, version] of Object.entries<string>(manifest.dependencies ?? {})) {
      if (version.startsWith('workspace:')) install(realpathSync(join(folder, 'node_modules', name)))
    }
  }
  install(PACKAGE)
  for (const peer of ['cordis', 'schemastery']) symlinkSync(realpathSync(join(PACKAGE, 'node_modules', peer)), join(modules, peer), 'dir')
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'host-app', private: true, type: 'module' }))
  writeFileSync(join(app, 'main.js'), [
    `import { Context, Service } from 'cordis'`,
    `const { default: SystemPrompt } = await import('dsh-system-prompt')`,
    `const { renderPrompt } = await import('dsh-system-prompt/bytes')`,
    `const ctx = new Context()`,
    `await ctx.plugin(SystemPrompt, { persona: 'You review {{lang}}.', includeHarnessIdentity: false })`,
    `ctx.systemPrompt.variable('lang', () => 'TypeScript')`,
    `const tool = (name) => ({ name, description: name, parameters: { type: 'object', properties: {} } })`,
    `ctx.systemPrompt.tools(() => ({ schemas: [tool('write'), tool('read')] }))`,
    `const assembly = await ctx.systemPrompt.assemble({})`,
    `console.log(JSON.stringify({`,
    `  prompt: renderPrompt(assembly),`,
    `  tools: assembly.tools.map((tool) => tool.name),`,
    `  oneCordis: ctx.systemPrompt instanceof Service,`,
    `}))`,
  ].join('\n'))
}

function runNode(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // no --import / --conditions: exactly what `node main.js` in a user's app does
    execFile(process.execPath, args, { cwd: app, env: { ...process.env, NODE_OPTIONS: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr })
    })
  })
}

describe('a plain Node Cordis app', () => {
  beforeAll(setUpApp)
  afterAll(() => rmSync(app, { recursive: true, force: true }))

  it('imports dsh-system-prompt from its built JavaScript and assembles a prompt with the host cordis', async () => {
    const result = await runNode(['main.js'])
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({ prompt: 'You review TypeScript.', tools: ['read', 'write'], oneCordis: true })
  })

  it('resolves the package to dist/ JavaScript, never to a TypeScript source', async () => {
    const result = await runNode(['--input-type=module', '-e', `process.stdout.write(import.meta.resolve('dsh-system-prompt'))`])
    expect(result.stdout).toBe(new URL('node_modules/dsh-system-prompt/dist/index.js', `file://${realpathSync(app)}/`).href)
  })
})
