import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tempDir } from '../setup.ts'

const REPO = fileURLToPath(new URL('../../../../', import.meta.url))

/** The real offline demo, run as a user runs it. */
export const STDIO_BIN = join(REPO, 'apps/stdio-demo/bin/dsh-stdio-demo')

/** The app file the README screenshot is taken from, kept in the repo for it. */
export const SCREENSHOT_APP = join(REPO, 'devtools/prompt-inspector/docs/viewer-session.yml')

/** The committed picture and the text that says which session it shows. */
export const SCREENSHOT_PNG = join(REPO, 'devtools/prompt-inspector/docs/viewer.png')
export const SCREENSHOT_DESCRIPTION = join(REPO, 'devtools/prompt-inspector/docs/viewer-session.txt')

/** The tool the app file adds mid-session (`afterReadyMs`), and the prompts typed before and after it joins. */
export const JOINING_TOOL = 'get_time'
export const PROMPTS_BEFORE = ['hello', '/call list_dir {"path":"."}', 'what is in src?']
export const PROMPTS_AFTER = ['/call get_time {}', 'thanks', 'one more question', 'bye']

/** The description stored next to the PNG, from the app file's bytes and the prompts above. */
export async function describeScreenshotSession(): Promise<string> {
  const sha = createHash('sha256').update(await readFile(SCREENSHOT_APP)).digest('hex')
  return [
    'docs/viewer.png: `dsh-prompt view` on a real session of the offline demo (dsh-stdio-demo, scripted-echo,',
    'emulated prompt cache). tests/view/screenshot.spec.ts regenerates the session and checks the page;',
    'DSH_WRITE_SCREENSHOT=1 rewrites the PNG and this file.',
    `app file: ${relative(REPO, SCREENSHOT_APP)} (sha256 ${sha})`,
    'prompts, one a turn, piped in order:',
    ...PROMPTS_BEFORE.map((prompt) => `  ${prompt}`),
    `  (the tool ${JOINING_TOOL} joins here, mid-session)`,
    ...PROMPTS_AFTER.map((prompt) => `  ${prompt}`),
    '',
  ].join('\n')
}

/** A running demo with piped stdio: stdout read line by line. */
class Demo {
  private stdout = ''
  private stderr = ''
  private read = 0
  private wake: (() => void) | undefined
  private readonly child
  readonly exited: Promise<number | null>

  constructor(env: Record<string, string>, cwd: string) {
    this.child = spawn(process.execPath, [STDIO_BIN, SCREENSHOT_APP], { cwd, env: { ...process.env, DSH_LOG_LEVEL: 'error', DSH_STARTUP_TIMEOUT_MS: '', ...env } })
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => { this.stdout += chunk; this.wake?.() })
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => { this.stderr += chunk })
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject)
      this.child.on('close', (code) => { this.wake?.(); resolve(code) })
    })
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`)
  }

  async line(): Promise<string> {
    while (this.stdout.indexOf('\n', this.read) < 0) {
      if (this.child.exitCode !== null) throw new Error(`dsh-stdio-demo exited (${this.child.exitCode}) before answering; stderr:\n${this.stderr}`)
      await new Promise<void>((resolve) => { this.wake = resolve })
    }
    const end = this.stdout.indexOf('\n', this.read)
    const line = this.stdout.slice(this.read, end)
    this.read = end + 1
    return line
  }

  /** The names `/tools` lists now. */
  async tools(): Promise<string[]> {
    this.send('/tools')
    const head = await this.line()
    const count = head === 'no tools' ? 0 : Number.parseInt(head, 10)
    const names: string[] = []
    for (let i = 0; i < count; i++) names.push(/^\d+\. (\S+)/.exec(await this.line())?.[1] ?? '')
    return names
  }

  async finish(): Promise<{ code: number | null; stderr: string }> {
    this.child.stdin.end()
    return { code: await this.exited, stderr: this.stderr }
  }
}

/**
 * Runs the screenshot's session through the real `dsh-stdio-demo` with the app file above, in a fresh
 * working folder and state folder: the prompts before the join, then waits (asking `/tools`) until the
 * joining tool is in, then the rest. Returns the session log's path.
 */
export async function recordScreenshotSession(): Promise<string> {
  const root = await tempDir()
  const cwd = join(root, 'project')
  const state = join(root, 'state')
  await mkdir(cwd)
  const demo = new Demo({ XDG_STATE_HOME: state }, cwd)
  for (const prompt of PROMPTS_BEFORE) {
    demo.send(prompt)
    await demo.line()
  }
  if ((await demo.tools()).includes(JOINING_TOOL)) {
    await demo.finish()
    throw new Error(`${JOINING_TOOL} joined before turn ${PROMPTS_BEFORE.length + 1}: the first turns took longer than its afterReadyMs in ${relative(REPO, SCREENSHOT_APP)}`)
  }
  const deadline = Date.now() + 15_000
  while (!(await demo.tools()).includes(JOINING_TOOL)) {
    if (Date.now() > deadline) {
      await demo.finish()
      throw new Error(`${JOINING_TOOL} never joined: /tools did not list it within 15 s`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  for (const prompt of PROMPTS_AFTER) {
    demo.send(prompt)
    await demo.line()
  }
  const { code, stderr } = await demo.finish()
  if (code !== 0) throw new Error(`dsh-stdio-demo exited ${code}; stderr:\n${stderr}`)
  const logs = (await readdir(state, { recursive: true })).filter((name) => name.endsWith('.jsonl')).map((name) => join(state, name))
  if (logs.length !== 1) throw new Error(`expected one session log under ${state}, found ${logs.length}`)
  return logs[0]!
}
