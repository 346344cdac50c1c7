import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkBalanced } from '../harness.ts'
import { parseJsonl } from './normalize.ts'
import { snapshotMode } from './replay.ts'
import { placeholderProblems, secretProblems } from './rules.ts'
import { SCENARIOS_ROOT, scenarioDirs } from './scenario.ts'

// refresh and record rewrite the fixtures this file reads; it runs with the replay (record mode scans what it writes)
const rewriting = snapshotMode(process.env.DSH_SNAPSHOT) !== 'replay'

async function copyOfScenarios(): Promise<string> {
  const root = join(await mkdtemp(join(tmpdir(), 'dsh-rules-')), 'acp')
  await cp(SCENARIOS_ROOT, root, { recursive: true })
  return root
}

async function editLines(file: string, edit: (event: any) => void): Promise<void> {
  const lines = (await readFile(file, 'utf8')).trimEnd().split('\n').map((line) => {
    const event = JSON.parse(line)
    edit(event)
    return JSON.stringify(event)
  })
  await writeFile(file, `${lines.join('\n')}\n`)
}

describe.skipIf(rewriting)('the pinned-header rule', () => {
  it('holds for the fixtures: only text-turn keeps a real header, the rest hold exactly the placeholders', async () => {
    expect(await placeholderProblems()).toEqual([])
  })

  it('reports a real header outside text-turn, a placeholder inside it, and misplaced pinned files', async () => {
    const root = await copyOfScenarios()
    const pinned = await readFile(join(root, 'text-turn', 'session.jsonl'), 'utf8')
    const realHeader = JSON.parse(pinned.split('\n').find((line) => line.includes('"request/header"'))!).data.header
    await editLines(join(root, 'tool-call', 'session.jsonl'), (event) => {
      if (event.type === 'request/header') event.data.header = realHeader
    })
    await editLines(join(root, 'text-turn', 'session.jsonl'), (event) => {
      if (event.type === 'request/header') event.data.header.system = '{{system}}'
    })
    await writeFile(join(root, 'cancel', 'tool-schemas.expected.json'), '[]\n')
    const problems = await placeholderProblems(root)
    expect(problems).toHaveLength(3)
    expect(problems.join('\n')).toMatch(/cancel\/tool-schemas\.expected\.json: only text-turn pins the header/)
    expect(problems.join('\n')).toMatch(/text-turn\/session\.jsonl:\d+: the pinned scenario must keep the real system prompt/)
    expect(problems.join('\n')).toMatch(/tool-call\/session\.jsonl:\d+: header must hold exactly "\{\{system\}\}" and "\{\{tools\}\}"/)
  })

  it('reports a pinned scenario without its header files', async () => {
    const root = await copyOfScenarios()
    await writeFile(join(root, 'text-turn', 'system-prompt.expected.md'), '')
    await rm(join(root, 'text-turn', 'tool-schemas.expected.json'))
    expect(await placeholderProblems(root)).toEqual([expect.stringMatching(/text-turn\/tool-schemas\.expected\.json: missing/)])
  })
})

describe.skipIf(rewriting)('the recorded sessions', () => {
  it('open and close every turn and step in pairs, including the cancelled and the failed turns', async () => {
    for (const dir of await scenarioDirs()) {
      const file = join(dir, 'session.jsonl')
      const events = parseJsonl(await readFile(file, 'utf8'), file)
      expect(events.length, file).toBeGreaterThan(0)
      expect(() => checkBalanced(events), file).not.toThrow()
    }
  })

  it('would notice a log cut off inside a turn', async () => {
    const file = join(SCENARIOS_ROOT, 'cancel', 'session.jsonl')
    const events = parseJsonl(await readFile(file, 'utf8'), file)
    expect(() => checkBalanced(events.slice(0, -1))).toThrow(/ends inside a turn/)
  })
})

describe('the key scan', () => {
  it.skipIf(rewriting)('finds no key-shaped string in any file under fixtures/', async () => {
    const problems = await secretProblems()
    expect(problems, problems.join('\n')).toEqual([])
  })

  it('names the file and line of every key-shaped string', async () => {
    const root = await mkdtemp(join(tmpdir(), 'dsh-keys-'))
    await mkdir(join(root, 'acp', 'leak'), { recursive: true })
    // assembled at run time, so this source file holds no key-shaped literal itself
    const fakeKey = ['sk', 'proj', 'A1b2C3d4E5f6G7h8I9j0'].join('-')
    const hex = 'f0'.repeat(16)
    const base64 = `${'QWxhZGRpbjpvcGVuIHNlc2FtZQ'}${'x9'.repeat(10)}`
    await writeFile(join(root, 'acp', 'leak', 'session.jsonl'), `{"ok":true}\n{"text":"key ${fakeKey}"}\n`)
    await writeFile(join(root, 'acp', 'leak', 'stdout.expected.jsonl'), `\n\n{"h":"${['Bearer', 'abc'].join(' ')}"}\n`)
    await writeFile(join(root, 'notes.md'), `hash ${hex}\nblob ${base64}\nplain words and <session-1> and <call-2>\n`)
    const problems = await secretProblems(root)
    expect(problems).toEqual([
      `${join(root, 'acp', 'leak', 'session.jsonl')}:2: looks like an sk- API key`,
      `${join(root, 'acp', 'leak', 'stdout.expected.jsonl')}:3: looks like a Bearer token`,
      `${join(root, 'notes.md')}:1: looks like a long hex secret`,
      `${join(root, 'notes.md')}:2: looks like a long base64 secret`,
    ])
  })
})
