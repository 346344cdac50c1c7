import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BIN, type BinResult } from './setup.ts'

const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const STDIO_BIN = join(REPO, 'apps/stdio-demo/bin/dsh-stdio-demo')

/** Every app file the repo ships: the apps' default files and the examples the READMEs show. */
const APP_FILES = [
  ...readdirSync(join(REPO, 'apps')).map((app) => `apps/${app}/cordis.yml`),
  ...readdirSync(join(REPO, 'examples')).filter((name) => name.endsWith('.yml')).map((name) => `examples/${name}`),
].sort()


/** Needs a database to boot at all (its store connects at start): linted against a real server in the .pg spec. */
const NEEDS_DATABASE = 'examples/postgres.yml'

/** The environment without any secret: no API key variable, no database URL. */
function withoutSecrets(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DSH_LOG_LEVEL: 'error', DSH_STARTUP_TIMEOUT_MS: '' }
  for (const name of Object.keys(env)) {
    if (/_API_KEY$|^DSH_PG_URL$/.test(name)) delete env[name]
  }
  return env
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<BinResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { cwd: REPO, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (error as { code?: number }).code ?? null : 0, stdout, stderr })
    })
  })
}

/** The rules an app file's own comments explain: `# dsh-prompt lint: <rule>, <why>`. */
function explainedRules(file: string): string[] {
  const text = readFileSync(join(REPO, file), 'utf8')
  return [...text.matchAll(/^# dsh-prompt lint: ([a-z-]+)/gm)].map((match) => match[1]!)
}

describe('dsh-prompt lint on every app file the repo ships, with no secret in the environment', () => {
  it('finds the apps and the examples', () => {
    expect(APP_FILES).toContain('apps/stdio-demo/cordis.yml')
    expect(APP_FILES).toContain('apps/acp-demo/cordis.yml')
    expect(APP_FILES).toContain('examples/real-model.yml')
  })

  it.each(APP_FILES.filter((file) => file !== NEEDS_DATABASE))('%s: exit 0, or only the findings its comment explains', { timeout: 90_000 }, async (file) => {
    const { code, stdout, stderr } = await run(BIN, ['lint', file, '--json'], withoutSecrets())
    expect(code, `${file}: ${stderr}`).not.toBe(2)
    const explained = [...new Set(explainedRules(file))].sort()
    const found = [...new Set(JSON.parse(stdout).findings.map((finding: { rule: string }) => finding.rule) as string[])].sort()
    expect(found, `${file}: findings no comment of the file explains (or an explanation with no finding left)`).toEqual(explained)
    expect(code).toBe(explained.length ? 1 : 0)
  })

  it('the shipped stdio app keeps the working folder out of the prefix: the same header bytes in two folders', async () => {
    const inspect = (cwd: string) => new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [BIN, 'inspect', join(REPO, 'apps/stdio-demo/cordis.yml'), '--json'], { cwd, env: withoutSecrets() }, (error, stdout) => {
        if (error) reject(error)
        else resolve(JSON.parse(stdout).fingerprint.header)
      })
    })
    const [a, b] = [await inspect(REPO), await inspect(join(REPO, 'apps'))]
    expect(a).toBe(b)
  })

  it('the database example without its URL fails in one line naming the variable (lint needs a store to boot the loop)', async () => {
    const { code, stdout, stderr } = await run(BIN, ['lint', NEEDS_DATABASE], withoutSecrets())
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toMatch(/^examples\/postgres\.yml: entry "sessions" \(dsh-session-postgres\): failed to start: urlEnv names the variable "DSH_PG_URL", which is not set; .*\n$/)
  })

  it('a real run without the key still fails at boot, in one line naming the variable', async () => {
    const { code, stdout, stderr } = await run(STDIO_BIN, ['examples/real-model.yml'], withoutSecrets())
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('examples/real-model.yml: entry "deepseek" (dsh-llm-openai): failed to start: environment variable DEEPSEEK_API_KEY is not set '
      + '(needed by dsh-llm-openai for model deepseek-chat); export it, or disable this entry\n')
  })
})
