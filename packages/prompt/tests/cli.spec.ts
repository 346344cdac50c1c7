import { describe, expect, it } from 'vitest'
import { DEFAULT_SETTLE_MS, PromptCliError, parseArgs } from '../src/index.ts'
import { runBin, tempDir } from './setup.ts'

describe('dsh-prompt arguments', () => {
  it('prints usage for --help and exits 0', async () => {
    const { code, stdout, stderr } = await runBin(['--help'], await tempDir())
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toMatch(/^Usage:\n {2}dsh-prompt inspect <cordis\.yml> \[--json\]/)
    expect(stdout).toContain('JSON.stringify(tools) + "\\n" + system')
  })

  it.each([
    [[], /^missing command; valid commands: inspect, diff/],
    [['frob'], /^unknown command "frob"; valid commands: inspect, diff/],
    [['inspect'], /^inspect takes one app file, got none/],
    [['inspect', 'a.yml', 'b.yml'], /^inspect takes one app file, got 2 \("a\.yml" "b\.yml"\)/],
    [['inspect', 'a.yml', '--verbose'], /^unknown option "--verbose"; valid options: --json, --settle <ms>, --pg-url-env <NAME>, --pg-schema <name>, --help/],
    [['inspect', 'a.yml', '--settle', 'soon'], /^--settle expects a whole number of milliseconds from 0 to 600000, got "soon"/],
    [['inspect', 'a.yml', '--settle'], /^--settle needs a value in milliseconds/],
    [['inspect', 'a.yml', '--json=yes'], /^option --json takes no value/],
  ])('rejects %j with one line and exit 1', async (args, message) => {
    const { code, stdout, stderr } = await runBin(args, await tempDir())
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr.split('\n')).toHaveLength(2)
    expect(stderr).toMatch(message)
  })

  it.each([
    [['diff', 'a.yml'], /^diff takes two inputs, got 1/],
    [['diff', 'a.yml', 'pg:x', '--pg-url-env', 'not-a-name'], /^--pg-url-env expects an environment variable name, e\.g\. DSH_PG_URL, got "not-a-name"/],
    [['diff', 'a.yml', 'pg:x', '--pg-schema=Bad'], /^--pg-schema expects lower case letters, digits and "_", e\.g\. dsh, got "Bad"/],
    [['diff', 'a.yml', 'pg:x', '--pg-schema'], /^--pg-schema expects lower case letters, digits and "_", e\.g\. dsh, got nothing/],
  ])('rejects diff %j with one line and exit 2, so 1 only ever means "the prefixes differ"', async (args, message) => {
    const { code, stdout, stderr } = await runBin(args, await tempDir())
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.split('\n')).toHaveLength(2)
    expect(stderr).toMatch(message)
  })

  it('parses both commands and their options', () => {
    expect(parseArgs(['inspect', 'app.yml'])).toEqual({ command: 'inspect', file: 'app.yml', json: false, settleMs: DEFAULT_SETTLE_MS })
    expect(parseArgs(['--json', 'diff', 'a.yml', 'b.jsonl#3', '--settle=0'])).toEqual({
      command: 'diff', a: 'a.yml', b: 'b.jsonl#3', json: true, settleMs: 0, pg: { urlEnv: 'DSH_PG_URL', schema: 'dsh' },
    })
    expect(parseArgs(['diff', 'pg:a', 'pg:b#2', '--pg-url-env', 'TEAM_DB', '--pg-schema=agents'])).toMatchObject({ pg: { urlEnv: 'TEAM_DB', schema: 'agents' } })
    expect(parseArgs(['inspect', '--', '-odd.yml'])).toMatchObject({ file: '-odd.yml' })
    expect(parseArgs(['frob', '-h'])).toEqual({ command: 'help' })
  })

  it.each(['-1', '1.5', '600001', ''])('refuses --settle %j', (value) => {
    expect(() => parseArgs(['inspect', 'a.yml', `--settle=${value}`])).toThrow(PromptCliError)
  })
})
