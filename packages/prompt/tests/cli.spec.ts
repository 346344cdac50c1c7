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
    [['inspect', 'a.yml', '--verbose'], /^unknown option "--verbose"; valid options: --json, --settle <ms>, --help/],
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

  it('exits 2 on a usage error of diff, so 1 only ever means "the prefixes differ"', async () => {
    const { code, stderr } = await runBin(['diff', 'a.yml'], await tempDir())
    expect(code).toBe(2)
    expect(stderr).toMatch(/^diff takes two inputs, got 1/)
  })

  it('parses both commands and their options', () => {
    expect(parseArgs(['inspect', 'app.yml'])).toEqual({ command: 'inspect', file: 'app.yml', json: false, settleMs: DEFAULT_SETTLE_MS })
    expect(parseArgs(['--json', 'diff', 'a.yml', 'b.jsonl#3', '--settle=0'])).toEqual({ command: 'diff', a: 'a.yml', b: 'b.jsonl#3', json: true, settleMs: 0 })
    expect(parseArgs(['inspect', '--', '-odd.yml'])).toMatchObject({ file: '-odd.yml' })
    expect(parseArgs(['frob', '-h'])).toEqual({ command: 'help' })
  })

  it.each(['-1', '1.5', '600001', ''])('refuses --settle %j', (value) => {
    expect(() => parseArgs(['inspect', 'a.yml', `--settle=${value}`])).toThrow(PromptCliError)
  })
})
