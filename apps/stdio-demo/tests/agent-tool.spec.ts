import { readFile, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { App, run, tempDir } from './setup.ts'

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

  it('the parent process killed while a child runs: the next open balances both logs', { timeout: 60_000 }, async () => {
    const dir = await tempDir('dsh-agent-kill-')
    const script = join(dir, 'script.json')
    await writeFile(script, JSON.stringify({ responses: [
      { toolCalls: [{ name: 'agent', arguments: { instruction: 'take your time', description: 'a slow child' } }] },
      { text: 'too late', delayMs: 60_000 },
    ] }))
    const app = (model: string) => [
      `- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, scripted: false } }`,
      `- { id: model, name: dsh-llm-scripted, config: { models: [scripted-echo]${model} } }`,
    ].join('\n')
    await writeFile(join(dir, 'slow.yml'), app(`, script: ${JSON.stringify(script)}`))
    await writeFile(join(dir, 'echo.yml'), app(''))
    const sessions = join(dir, 'sessions')
    const running = new App([join(dir, 'slow.yml')])
    running.send('go')
    let parent = ''
    await running.until(() => running.stderr.includes('→ agent'), 'calling the agent tool')
    for (;;) {
      const names = (await readdir(sessions)).filter((name) => name.endsWith('~1.jsonl'))
      parent = names[0]?.slice(0, -'~1.jsonl'.length) ?? ''
      if (parent && (await readFile(join(sessions, names[0]!), 'utf8')).includes('"take your time"')) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await running.stop('SIGKILL')
    const open = (events: { type: string }[]) => events.filter((event) => event.type === 'turn/start').length - events.filter((event) => event.type === 'turn/end').length
    expect([open(await log(sessions, parent)), open(await log(sessions, `${parent}~1`))]).toEqual([1, 1])

    const next = await run([join(dir, 'echo.yml'), '--resume', parent], 'hi\n')
    expect(next).toMatchObject({ code: 0, stdout: 'echo: hi\n' })
    const [parentLog, childLog] = [await log(sessions, parent), await log(sessions, `${parent}~1`)]
    expect([open(parentLog), open(childLog)]).toEqual([0, 0])
    expect(parentLog.find((event) => event.type === 'tool/result')!.data).toMatchObject({ name: 'agent', isError: true })
    expect(childLog.at(-1)).toMatchObject({
      type: 'turn/end', data: { reason: 'error', error: { message: 'the turn was interrupted before it ended (the parent process stopped while this child ran)' } },
    })
  })
})
