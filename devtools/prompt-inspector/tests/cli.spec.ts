import { describe, expect, it } from 'vitest'
import { PromptInspectorError } from '../src/errors.ts'
import { DEFAULT_SETTLE_MS, parseArgs } from '../src/cli.ts'
import { runBin, tempDir } from './setup.ts'

describe('dsh-prompt arguments', () => {
  it('prints usage for --help and exits 0', async () => {
    const { code, stdout, stderr } = await runBin(['--help'], await tempDir())
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(stdout).toMatch(/^Usage:\n {2}dsh-prompt inspect <cordis\.yml> \[--json\]/)
    expect(stdout).toContain('JSON.stringify(tools) + "\\n" + system')
  })

  // diff exits 2 on a usage error, so its 1 only ever means "the prefixes differ"
  it.each([
    [[], 1, /^missing command; valid commands: inspect, diff, view, lint/],
    [['frob'], 1, /^unknown command "frob"; valid commands: inspect, diff, view, lint/],
    [['inspect'], 1, /^inspect takes one app file, got none/],
    [['inspect', 'a.yml', 'b.yml'], 1, /^inspect takes one app file, got 2 \("a\.yml" "b\.yml"\)/],
    [['inspect', 'a.yml', '--verbose'], 1, /^unknown option "--verbose"; valid options: --json, --settle <ms>, --pg-url-env <NAME>, --pg-schema <name>, --out <file>, --open, --provider <id>, --cache-ttl <name>, --max-tool-bytes <n>, --help/],
    [['view'], 1, /^view takes one session, got none/],
    [['view', 'a.jsonl', '--out'], 1, /^--out needs a file name/],
    [['inspect', 'a.yml', '--settle', 'soon'], 1, /^--settle expects a whole number of milliseconds from 0 to 600000, got "soon"/],
    [['inspect', 'a.yml', '--settle'], 1, /^--settle needs a value in milliseconds/],
    [['inspect', 'a.yml', '--json=yes'], 1, /^option --json takes no value/],
    [['diff', 'a.yml'], 2, /^diff takes two inputs, got 1/],
    [['diff', 'a.yml', 'pg:x', '--pg-url-env', 'not-a-name'], 2, /^--pg-url-env expects an environment variable name, e\.g\. DSH_PG_URL, got "not-a-name"/],
    [['diff', 'a.yml', 'pg:x', '--pg-schema=Bad'], 2, /^--pg-schema expects lower case letters, digits and "_", e\.g\. dsh, got "Bad"/],
    [['diff', 'a.yml', 'pg:x', '--pg-schema'], 2, /^--pg-schema expects lower case letters, digits and "_", e\.g\. dsh, got nothing/],
  ])('rejects %j with one line and exit %i', async (args, exitCode, message) => {
    const { code, stdout, stderr } = await runBin(args, await tempDir())
    expect(code).toBe(exitCode)
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
    expect(() => parseArgs(['inspect', 'a.yml', `--settle=${value}`])).toThrow(PromptInspectorError)
  })
})
