import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { appYaml, run, writeApp } from './setup.ts'

const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

describe('command line', () => {
  it('--help lists every option, the log variable and every command, on stdout, exit 0', async () => {
    const result = await run(['--help'], '')
    expect(result).toMatchObject({ code: 0, stderr: '' })
    for (const part of ['app.yml', '-h, --help', '-V, --version', '--sessions', '--continue', '--resume <id>', '--history <rows|all>', 'DSH_LOG_LEVEL', 'XDG_STATE_HOME', 'Exit status', '/tools', '/prompt', '/call NAME {json}', '/help', '/exit']) {
      expect(result.stdout).toContain(part)
    }
  })

  it('--version prints the version instead of reading a file by that name', async () => {
    for (const flag of ['--version', '-V']) {
      expect(await run([flag], '')).toEqual({ code: 0, stdout: `dsh-stdio-demo ${version}\n`, stderr: '' })
    }
  })

  it('refuses an unknown option in one line that points at --help', async () => {
    const result = await run(['--verbose'], '')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toMatch(/^unknown option "--verbose"; valid options: -h\/--help, -V\/--version, --sessions, --continue, --resume <id>, --history <rows\|all> \(dsh-stdio-demo --help shows the usage\)\n$/)
  })

  it('/help lists /call and itself', async () => {
    const { file } = await writeApp(appYaml({}))
    const result = await run([file], '/help\n')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^\/call NAME \{json\} /m)
    expect(result.stdout).toMatch(/^\/help {2,}this list$/m)
  })
})
