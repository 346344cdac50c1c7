import { readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { run, tempDir } from './setup.ts'

const SHIPPED = fileURLToPath(new URL('../cordis.yml', import.meta.url))

/** The shipped app file with `extra` YAML lines added to its app entry's config, sessions in a temp folder. */
async function shippedWith(...extra: string[]): Promise<{ file: string; sessions: string }> {
  const dir = await tempDir('dsh-agent-tool-')
  const text = (await readFile(SHIPPED, 'utf8')).replace('    model: scripted-echo\n', `    model: scripted-echo\n    persistenceRoot: ./sessions\n${extra.map((line) => `    ${line}\n`).join('')}`)
  const file = join(dir, 'app.yml')
  await writeFile(file, text)
  return { file, sessions: join(dir, 'sessions') }
}

const log = async (sessions: string, id: string) =>
  (await readFile(join(sessions, `${id}.jsonl`), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; data: any })

describe('the agent tool through the shipped app file', () => {
  it('is in the prefix by default; a call runs a child agent whose final text is the result, in a linked session', { timeout: 60_000 }, async () => {
    const { file, sessions } = await shippedWith()
    await writeFile(file, (await readFile(file, 'utf8')).replace('allow: [get_time, list_dir]', 'allow: [get_time, list_dir, agent]'))
    const result = await run([file], '/tools\n/call agent {"instruction":"hello child","description":"a greeter"}\n')
    expect(result).toMatchObject({ code: 0, stderr: '→ agent {"instruction":"hello child","description":"a greeter"}\n← echo: hello child\n' })
    expect(result.stdout).toMatch(/^4 tools in request order:\n1\. agent — Runs a child agent on a task/)
    expect(result.stdout.endsWith('tool agent returned: echo: hello child\n')).toBe(true)
    const [parentFile, childFile, ...rest] = (await readdir(sessions)).filter((name) => name.endsWith('.jsonl')).sort()
    expect(rest).toEqual([])
    const parent = parentFile!.slice(0, -'.jsonl'.length)
    expect(childFile).toBe(`${parent}~1.jsonl`)
    const call = (await log(sessions, parent)).find((event) => event.type === 'tool/call')!
    expect((await log(sessions, parent)).find((event) => event.type === 'fork/child')!.data)
      .toEqual({ turn: 1, child: `${parent}~1`, mode: 'fork', description: 'a greeter', call: call.data.id })
    const child = await log(sessions, `${parent}~1`)
    expect(child[0]).toMatchObject({ type: 'fork/parent', data: { parent, mode: 'fork', description: 'a greeter', call: call.data.id } })
    expect(child.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'done' } })
  })

  it('agentTool: false leaves it out of the prefix', { timeout: 60_000 }, async () => {
    const { file } = await shippedWith('agentTool: false')
    const result = await run([file], '/tools\n')
    expect(result).toMatchObject({ code: 0, stderr: '' })
    expect(result.stdout).toMatch(/^3 tools in request order:\n1\. get_time/)
    expect(result.stdout).not.toContain('agent')
  })
})
