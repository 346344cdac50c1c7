import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'dsh-dev-run-'))

function run(args: string[], cwd: string, input = ''): Promise<{ error: Error | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, args, { cwd, env: { ...process.env, NODE_OPTIONS: '' } }, (error, stdout, stderr) => resolve({ error, stdout, stderr }))
    child.stdin!.end(input)
  })
}

describe('npm run dev', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  it('answers from the TypeScript sources, as the built bin does', async () => {
    const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.dev
    const [node, ...args] = script.split(' ')
    expect(node).toBe('node')
    const app = join(scratch, 'app.yml')
    writeFileSync(app, `- id: app\n  name: dsh-stdio-demo\n  config:\n    persistenceRoot: ${JSON.stringify(join(scratch, 'sessions'))}\n`)
    const result = await run([...args, app], ROOT, 'hi\n')
    expect(result.error).toBeNull()
    expect(result.stdout).toBe('echo: hi\n')
  })

  it('resolves workspace packages to src/ under --conditions=source, and to dist/ without it', async () => {
    const code = `process.stdout.write(import.meta.resolve('dsh-app-boot'))`
    const folder = join(ROOT, 'apps', 'stdio-demo')
    const source = await run(['--conditions=source', '--input-type=module', '-e', code], folder)
    const built = await run(['--input-type=module', '-e', code], folder)
    expect([source.stdout, built.stdout]).toEqual([
      new URL('packages/app-boot/src/index.ts', `file://${ROOT}`).href,
      new URL('packages/app-boot/dist/index.js', `file://${ROOT}`).href,
    ])
  })
})
