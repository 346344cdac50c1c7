import { execFile } from 'node:child_process'
import { copyFile, mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BIN, tempDir, type BinResult } from './setup.ts'

const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const README = fileURLToPath(new URL('../README.md', import.meta.url))

function bin(args: string[], cwd: string, env: Record<string, string> = {}): Promise<BinResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, DSH_LOG_LEVEL: '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (error as { code?: number }).code ?? null : 0, stdout, stderr })
    })
  })
}

/** The README's example block that starts with `$ <command>`: the command's words and the printed lines. */
async function example(command: string): Promise<{ args: string[]; lines: string[] }> {
  const text = await readFile(README, 'utf8')
  const start = text.indexOf(`$ ${command}`)
  if (start < 0) throw new Error(`README.md: no example "$ ${command}"`)
  const block = text.slice(start, text.indexOf('```', start)).trimEnd().split('\n')
  return { args: block[0]!.slice(block[0]!.indexOf('dsh-prompt ') + 'dsh-prompt '.length).split(' '), lines: block.slice(1) }
}

describe('the README examples of view and lint', () => {
  it('view prints what the README shows for the snapshot fixture', async () => {
    const { args, lines } = await example('dsh-prompt view fixtures/')
    const dir = await tempDir()
    const fixture = 'fixtures/acp/tool-added-mid-session/session.jsonl'
    await mkdir(join(dir, 'fixtures/acp/tool-added-mid-session'), { recursive: true })
    await copyFile(join(REPO, fixture), join(dir, fixture))
    const { code, stdout } = await bin(args, dir)
    expect(code).toBe(0)
    const printed = stdout.trimEnd().split('\n')
    expect(printed[0]).toMatch(new RegExp(`^wrote ${join(dir, 'session.html')} \\(\\d[\\d,]* bytes\\)$`))
    expect(printed.slice(1)).toEqual(lines.slice(1))
  })

  it('lint prints every line the README shows for the fixture, in order', async () => {
    const { args, lines } = await example('cd devtools/prompt-inspector/tests/fixtures/lint')
    const words = args.filter((word) => !word.includes('='))
    // the fixture's adapter entry names DSH_LINT_FIXTURE_KEY; lint boots for inspection, so it stays unset
    expect(process.env.DSH_LINT_FIXTURE_KEY).toBeUndefined()
    const { code, stdout } = await bin(words.slice(words.indexOf('lint')), join(REPO, 'devtools/prompt-inspector/tests/fixtures/lint'))
    expect(code).toBe(1)
    const printed = stdout.split('\n')
    let at = 0
    for (const line of lines.filter((line) => line.trim() !== '→ …')) {
      const found = printed.indexOf(line, at)
      expect(found, `README line not printed (in order): ${line}`).toBeGreaterThanOrEqual(0)
      at = found + 1
    }
  })

  it('lint of the shipped stdio app file, as the root README runs it, finds nothing: its working folder is runtime context', async () => {
    const { code, stdout } = await bin(['lint', 'apps/stdio-demo/cordis.yml', '--json'], REPO)
    expect(JSON.parse(stdout).findings).toEqual([])
    expect(code).toBe(0)
  })
})
