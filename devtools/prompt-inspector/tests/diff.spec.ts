import { appendFile, mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import { recordSession, runBin, spineEntry, staticEntry, tempDir, writeApp } from './setup.ts'

const base = [{ name: 'alpha' }, { name: 'gamma' }]

async function twoApps(a: object[], b: object[]) {
  const dir = await tempDir()
  await writeApp(dir, 'a.yml', a)
  await writeApp(dir, 'b.yml', b)
  return dir
}

describe('dsh-prompt diff on app files', () => {
  it('says identical for the same prefix', async () => {
    const dir = await twoApps([spineEntry(), staticEntry('t', base)], [staticEntry('t', [...base].reverse()), spineEntry()])
    const { code, stdout } = await runBin(['diff', 'a.yml', 'b.yml'], dir)
    expect(code).toBe(0)
    expect(stdout).toMatch(/^identical: both prefixes are the same \d+ bytes$/m)
    const json = JSON.parse((await runBin(['diff', 'a.yml', 'b.yml', '--json'], dir)).stdout)
    expect(json.identical).toBe(true)
    expect(json.divergence).toBeNull()
    expect(json.sha256.a).toBe(json.sha256.b)
  })

  it('names an added tool by index and name', async () => {
    const dir = await twoApps([spineEntry(), staticEntry('t', base)], [spineEntry(), staticEntry('t', [...base, { name: 'beta', delayMs: 30 }])])
    const { code, stdout } = await runBin(['diff', 'a.yml', 'b.yml'], dir)
    expect(code).toBe(1)
    expect(stdout).toMatch(/^diverge at byte \d+ \(tools\): tool #2: "beta" in b is not in a \(added\); a has "gamma" there$/m)
    const json = JSON.parse((await runBin(['diff', 'a.yml', 'b.yml', '--json'], dir)).stdout)
    expect(json.divergence.tool).toEqual({ index: 2, a: 'gamma', b: 'beta', cause: 'added', fields: [] })
    expect(json.tools).toEqual({ added: ['beta'], removed: [], changed: [], reordered: false })
    expect(json.identical).toBe(false)
  })

  it('names a removed tool, a reordering and a changed schema', async () => {
    const removed = await twoApps([spineEntry(), staticEntry('t', base)], [spineEntry(), staticEntry('t', [{ name: 'alpha' }])])
    const removal = JSON.parse((await runBin(['diff', 'a.yml', 'b.yml', '--json'], removed)).stdout)
    expect(removal.divergence.tool).toMatchObject({ index: 2, a: 'gamma', b: null, cause: 'removed' })

    const ordered = await twoApps([spineEntry(), staticEntry('t', base)], [spineEntry({ toolOrder: ['gamma', TOOL_ORDER_REST] }), staticEntry('t', base)])
    const order = await runBin(['diff', 'a.yml', 'b.yml'], ordered)
    expect(order.stdout).toMatch(/tool #1: a has "alpha", b has "gamma" \(order: both lists have both tools\)/)
    expect(order.stdout).toMatch(/tools a → b: common tools reordered/)

    const edited = await twoApps([spineEntry(), staticEntry('t', base)], [spineEntry(), staticEntry('t', [base[0], { name: 'gamma', description: 'Other.' }])])
    const schema = JSON.parse((await runBin(['diff', 'a.yml', 'b.yml', '--json'], edited)).stdout)
    expect(schema.divergence.tool).toEqual({ index: 2, a: 'gamma', b: 'gamma', cause: 'schema', fields: ['description'] })
    expect(schema.tools.changed).toEqual(['gamma'])
  })

  it('names the section when the persona differs', async () => {
    const dir = await twoApps([spineEntry({ persona: 'Be brief.' }), staticEntry('t', base)], [spineEntry({ persona: 'Be thorough.' }), staticEntry('t', base)])
    const { code, stdout } = await runBin(['diff', 'a.yml', 'b.yml'], dir)
    expect(code).toBe(1)
    expect(stdout).toMatch(/^diverge at byte \d+ \(system\): system prompt byte \d+ \(line 3, column 4, paragraph 2\), in section "deployment:persona"$/m)
    const json = JSON.parse((await runBin(['diff', 'a.yml', 'b.yml', '--json'], dir)).stdout)
    expect(json.divergence.system).toMatchObject({ section: 'deployment:persona', cause: 'section_changed' })
    expect(json.divergence.context.a).toMatch(/Be brief\.$/)
    expect(json.divergence.context.b).toMatch(/Be thorough\.$/)
  })
})

describe('dsh-prompt diff on session logs', () => {
  async function recorded() {
    const dir = await tempDir()
    const root = join(dir, 'sessions')
    await mkdir(root)
    const spine = { persona: 'You review code in {{cwd}}.', cwd: '/srv/project' }
    const session = await recordSession({
      root, id: 'one', spine, tools: [{ name: 'read' }, { name: 'write' }], prompts: ['hi', 'again'],
      between: [() => {}, (ctx) => {
        ctx.tools.register({ name: 'grep', description: 'grep things.', parameters: { type: 'object', properties: {} }, execute: () => '' })
      }],
    })
    const events = (await readFile(session.file, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line))
    const seqs = events.filter((event) => event.type === 'request/header').map((event) => event.seq)
    return { dir, file: session.file, seqs, spine }
  }

  it('compares two headers of one session and names the first divergence', async () => {
    const { dir, file, seqs } = await recorded()
    expect(seqs).toHaveLength(2)
    const { code, stdout } = await runBin(['diff', `${file}#${seqs[0]}`, file], dir)
    expect(code).toBe(1)
    expect(stdout).toMatch(/^diverge at byte \d+ \(tools\): tool #1: "grep" in b is not in a \(added\); a has "read" there$/m)
    expect(stdout).toContain(`request/header seq ${seqs[0]}`)
    expect(stdout).toContain(`request/header seq ${seqs[1]}`)
  })

  it('reports a system divergence by line and paragraph when only rendered text is known', async () => {
    const { dir, file } = await recorded()
    const other = join(dir, 'other.jsonl')
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line))
    const last = lines.filter((event) => event.type === 'request/header').at(-1)
    last.data.header.system = last.data.header.system.replace('/srv/project', '/srv/elsewhere')
    await writeFile(other, `${JSON.stringify(last)}\n`)
    const json = JSON.parse((await runBin(['diff', file, other, '--json'], dir)).stdout)
    expect(json.divergence.part).toBe('system')
    expect(json.divergence.system).toMatchObject({ line: 3, paragraph: 2, section: null, cause: 'system_changed' })
    expect(json.a.event.seq).toBe(last.seq)
  })

  it('finds an app file identical to the session it would write, and names the section against a session', async () => {
    const { dir, file, spine } = await recorded()
    await writeApp(dir, 'same.yml', [spineEntry(spine), staticEntry('t', [{ name: 'read' }, { name: 'write' }, { name: 'grep' }])])
    const same = await runBin(['diff', 'same.yml', file], dir)
    expect(same.code).toBe(0)
    expect(same.stdout).toMatch(/^identical/m)

    await writeApp(dir, 'persona.yml', [spineEntry({ ...spine, persona: 'Other.' }), staticEntry('t', [{ name: 'read' }, { name: 'write' }, { name: 'grep' }])])
    const json = JSON.parse((await runBin(['diff', file, 'persona.yml', '--json'], dir)).stdout)
    expect(json.divergence.system).toMatchObject({ section: 'deployment:persona', cause: 'system_changed' })
  })

  it.each([
    ['a missing file', async (dir: string) => join(dir, 'none.jsonl'), /^.*none\.jsonl: cannot read session log: ENOENT/],
    ['a log without request/header', async (dir: string) => {
      const path = join(dir, 'empty.jsonl')
      await writeFile(path, `${JSON.stringify({ seq: 1, time: 't', type: 'turn/start', data: { turn: 1 } })}\n`)
      return path
    }, /empty\.jsonl: no request\/header event in this session log$/],
    ['a seq that is not a header', async (dir: string) => {
      const { file } = await recordSession({ root: dir, id: 's', spine: {}, tools: [], prompts: ['hi'] })
      return `${file}#1`
    }, /s\.jsonl: no request\/header event with seq 1; request\/header seqs: \d+$/],
    ['a seq that is not a number', async (dir: string) => `${join(dir, 'x.jsonl')}#first`, /x\.jsonl#first: bad seq "first"/],
    ['a line that is not JSON', async (dir: string) => {
      const path = join(dir, 'broken.jsonl')
      await writeFile(path, 'not json\n{}\n')
      return path
    }, /broken\.jsonl:1: not a JSON event/],
    ['a line that is not UTF-8', async (dir: string) => {
      const { file } = await recordSession({ root: dir, id: 's', spine: {}, tools: [], prompts: ['hi'] })
      const bytes = await readFile(file)
      // a Latin-1 "é" inside the second line
      await writeFile(file, Buffer.concat([bytes.subarray(0, bytes.indexOf(10) + 5), Buffer.from([0xe9]), bytes.subarray(bytes.indexOf(10) + 5)]))
      return file
    }, /s\.jsonl:2: not valid UTF-8 at byte offset \d+$/],
    ['a header without tools', async (dir: string) => {
      const path = join(dir, 'shape.jsonl')
      await writeFile(path, `${JSON.stringify({ seq: 4, time: 't', type: 'request/header', data: { turn: 1, step: 1, reason: 'initial', header: { model: 'm', system: '' } } })}\n`)
      return path
    }, /shape\.jsonl:1: request\/header seq 4: data\.header\.tools must be a list of tools, got undefined$/],
    ['an input of unknown type', async (dir: string) => join(dir, 'notes.txt'), /notes\.txt: unknown input; expected an app file \(\.yml, \.yaml\), a session log \(\.jsonl, optionally file\.jsonl#SEQ\) or pg:SESSION-ID\[#SEQ\]/],
  ])('fails with one line on %s', async (_, make, message) => {
    const dir = await tempDir()
    const input = await make(dir)
    await writeApp(dir, 'ok.yml', [spineEntry()])
    const { code, stdout, stderr } = await runBin(['diff', input, 'ok.yml'], dir)
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.split('\n')).toHaveLength(2)
    expect(stderr.trimEnd()).toMatch(message)
  })

  it('skips a torn last line, as a crash mid-write leaves it', async () => {
    const { dir, file } = await recorded()
    const before = JSON.parse((await runBin(['diff', file, file, '--json'], dir)).stdout)
    await appendFile(file, '{"seq":99,"type":"request/hea')
    const after = JSON.parse((await runBin(['diff', file, file, '--json'], dir)).stdout)
    expect(after.a.event).toEqual(before.a.event)
    expect(after.identical).toBe(true)
  })

  it('never modifies the session log: a torn last line stays, byte for byte, whatever the diff finds', async () => {
    const { dir, file, seqs } = await recorded()
    await appendFile(file, '{"seq":99,"type":"request/hea')
    await utimes(file, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'))
    const bytes = await readFile(file)
    const { mtimeMs, size } = await stat(file)
    const runs = [['diff', file, file], ['diff', `${file}#${seqs[0]}`, file, '--json'], ['diff', `${file}#999`, file]]
    const codes: (number | null)[] = []
    for (const args of runs) codes.push((await runBin(args, dir)).code)
    expect(codes).toEqual([0, 1, 2])
    expect((await readFile(file)).equals(bytes)).toBe(true)
    expect(await stat(file)).toMatchObject({ mtimeMs, size })
  })
})
