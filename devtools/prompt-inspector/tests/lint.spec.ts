import { fileURLToPath } from 'node:url'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { findVolatile } from '../src/lint/volatile.ts'
import { runBin, spineEntry, tempDir, writeApp } from './setup.ts'

const FIXTURES = fileURLToPath(new URL('./fixtures/lint/', import.meta.url))

describe('dsh-prompt lint', () => {
  // the fixture's OpenAI entry boots only with its key variable set; nothing is sent
  beforeEach(() => { vi.stubEnv('DSH_LINT_FIXTURE_KEY', 'not-a-key') })

  it('reports one finding of each kind in the fixture app file, each with its source, and exits 1', async () => {
    const { code, stdout, stderr } = await runBin(['lint', 'unstable.yml', '--max-tool-bytes', '400', '--json'], FIXTURES)
    expect(stderr).toBe('')
    expect(code).toBe(1)
    const report = JSON.parse(stdout)
    const found = report.findings.map((finding: any) => [finding.rule, finding.source.kind, finding.source.name, finding.detail?.aspect ?? finding.detail?.kind ?? null])
    expect(found).toEqual([
      ['varies-between-assemblies', 'variable', 'counter', null],
      ['varies-between-boots', 'variable', 'boot', null],
      ['cwd-in-prefix', 'variable', 'cwd', null],
      ['volatile-text', 'section', 'deployment:persona', 'date'],
      ['volatile-tool-description', 'tool', 'scratch', 'temp-path'],
      ['tool-block-too-large', 'tool', 'scratch', null],
      ['prefix-below-minimum', 'model', 'gpt-4o-mini', null],
      ['mcp-listing-unstable', 'server', 'flaky', 'order'],
      ['mcp-listing-unstable', 'server', 'flaky', 'description'],
    ])
    const byRule = (rule: string) => report.findings.find((finding: any) => finding.rule === rule)
    expect(byRule('volatile-tool-description').detail.text).toBe('/tmp/dsh-scratch/work')
    expect(byRule('volatile-tool-description').source.entry).toBe('tools')
    expect(byRule('cwd-in-prefix').advice).toMatch(/each folder gets its own cached prefix.*runtime context/i)
    expect(byRule('tool-block-too-large').detail.top.map((tool: any) => tool.name)).toEqual(['scratch', 'mcp__flaky__find', 'mcp__flaky__open'])
    expect(byRule('prefix-below-minimum').detail).toEqual({ estimatedTokens: Math.ceil(report.checked.prefixBytes / 4), bytes: report.checked.prefixBytes, minimumTokens: 1024, provider: 'openai', model: 'gpt-4o-mini' })
    expect(report.pending).toEqual([])
    expect(report.checked).toMatchObject({ boots: 2, assemblies: 3, mcpListings: [{ server: 'flaky', listings: 2 }] })
  })

  it('prints each finding with its rule and source as text', async () => {
    const { code, stdout } = await runBin(['lint', 'unstable.yml'], FIXTURES)
    expect(code).toBe(1)
    expect(stdout).toContain('  varies-between-assemblies  [variable counter]\n')
    expect(stdout).toContain('  volatile-tool-description  [tool scratch, entry tools]\n')
    expect(stdout).toContain('  mcp-listing-unstable  [server flaky]\n')
    expect(stdout).not.toContain('tool-block-too-large') // 479 bytes is under the default threshold
    expect(stdout).toContain('  prefix-below-minimum  [model gpt-4o-mini]\n')
  })

  it('exits 0 with nothing to report on a stable app file', async () => {
    const { code, stdout, stderr } = await runBin(['lint', 'stable.yml'], FIXTURES)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain('no findings')
    expect(stdout).not.toContain('pending') // scripted-echo has the generic profile, whose minimum is 1 token
  })

  it('exits 2 naming a runtime-context variable that no one provides, which would fail every turn', async () => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [spineEntry({ persona: 'Be brief.', runtimeContext: 'Working in {{cwdd}}.' })])
    const { code, stdout, stderr } = await runBin(['lint', 'app.yml'], dir)
    expect(stdout).toBe('')
    expect(stderr).toBe('unknown prompt variable "cwdd" in context "deployment:context"; registered variables: cwd, model\n')
    expect(code).toBe(2)
  })

  it.each([
    ['an app file that does not boot', ['lint', 'app.yml'], /^app\.yml: entry "x" \(dsh-nope\): cannot resolve plugin/],
    ['a missing app file', ['lint', 'missing.yml'], /missing\.yml/],
    ['a bad --max-tool-bytes', ['lint', 'app.yml', '--max-tool-bytes', '0'], /^--max-tool-bytes expects a whole number of bytes from 1 to 999999999, got "0"$/],
    ['no app file', ['lint'], /^lint takes one app file, got none/],
  ])('exits 2 with one line for %s', async (_, args, message) => {
    const dir = await tempDir()
    await writeApp(dir, 'app.yml', [{ id: 'x', name: 'dsh-nope' }])
    const { code, stdout, stderr } = await runBin(args, dir)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(stderr.trimEnd()).toMatch(message)
  })
})

describe('volatile text', () => {
  it.each([
    ['Today is 2026-12-01.', [['date', '2026-12-01']]],
    ['Released December 1, 2026 at 14:03 UTC', [['date', 'December 1, 2026'], ['time', '14:03 UTC']]],
    ['id 3f2b9c1e-1111-4a2b-9c3d-0123456789ab', [['random-id', '3f2b9c1e-1111-4a2b-9c3d-0123456789ab']]],
    ['build a1b2c3d4e5f6a7b8c9d0', [['random-id', 'a1b2c3d4e5f6a7b8c9d0']]],
    ['scratch in /tmp/dsh-x1/work, then', [['temp-path', '/tmp/dsh-x1/work']]],
    ['You review code in /srv/project.', []],
    ['Call mcp__filesystem__read_text_file with a path.', []],
    ['version 1.2.3 on port 8080', []],
  ])('in %j finds %j', (text, expected) => {
    expect(findVolatile(text).map((match) => [match.kind, match.text])).toEqual(expected)
  })
})
