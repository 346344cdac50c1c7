import { spawn, spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, it, onTestFinished } from 'vitest'
import { BIN, writeApp } from './setup.ts'

/** util-linux `script` gives the bin a real pseudo-terminal. */
export const hasScript = spawnSync('script', ['--version']).status === 0

/**
 * What a spec that needs a pseudo-terminal does: run with `script(1)`; without it, skip on a developer's
 * machine but fail under CI (`CI` set and not "false" or "0"), where a silent skip would hide the specs.
 */
export function terminalPolicy(scriptFound: boolean, env: NodeJS.ProcessEnv): 'run' | 'skip' | 'fail' {
  if (scriptFound) return 'run'
  const ci = env.CI
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0' ? 'fail' : 'skip'
}

/** `describe` for specs that need a pseudo-terminal, following `terminalPolicy`. */
export function describeOnTerminal(name: string, body: () => void): void {
  const policy = terminalPolicy(hasScript, process.env)
  if (policy === 'run') describe(name, body)
  else if (policy === 'skip') describe.skip(name, body)
  else {
    describe(name, () => {
      it('needs script(1)', () => {
        throw new Error('script(1) is not on PATH, so the terminal specs cannot run; install it (Debian: apt-get install bsdutils, or util-linux)')
      })
    })
  }
}

/** The bin on a pseudo-terminal: what the terminal shows so far, keys to type, and the exit code. */
export interface Terminal {
  screen(): string
  /** Waits until `text` shows at or after `from`; returns the index just past it. */
  until(text: string, from?: number): Promise<number>
  type(keys: string): void
  exited: Promise<number | null>
}

/**
 * Runs `dsh-stdio-demo <args>` on a pseudo-terminal (`redirect`, e.g. `> out.txt`, is appended to the
 * shell command line; `size` sets the terminal's rows and columns). `TERM` defaults to xterm, on which readline's
 * arrow keys work.
 */
export function openTerminal(args: string[], env: Record<string, string> = {}, redirect = '', cwd?: string, size?: { rows: number; columns: number }): Terminal {
  const command = [process.execPath, BIN, ...args].map((part) => `"${part}"`).join(' ')
  // the pseudo-terminal's size, as a terminal window of that size would report it
  const resize = size ? `stty rows ${size.rows} columns ${size.columns}; ` : ''
  // `exec`: the bin replaces the shell script(1) starts ($SHELL, else /bin/sh), so Ctrl-C reaches the bin alone.
  // Without it, dash (Debian's /bin/sh, what CI gets with SHELL unset) dies of the SIGINT itself, and script
  // reports 130 whatever the bin did.
  const child = spawn('script', ['-qfec', `${resize}exec ${command} ${redirect}`, '/dev/null'], {
    cwd,
    env: { ...process.env, DSH_LOG_LEVEL: '', DSH_STARTUP_TIMEOUT_MS: '', TERM: 'xterm', ...env },
  })
  let screen = ''
  const waiters: (() => void)[] = []
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk
    for (const wake of waiters.splice(0)) wake()
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  onTestFinished(() => { child.kill() })
  return {
    screen: () => screen,
    async until(text, from = 0) {
      const deadline = Date.now() + 8000
      while (!screen.includes(text, from)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${JSON.stringify(text)} on the terminal; it shows:\n${screen}`)
        await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 100) })
      }
      return screen.indexOf(text, from) + text.length
    },
    type: (keys) => child.stdin.write(keys),
    exited,
  }
}

/**
 * An app file on the scripted model `script-model` answering `responses` in turn (see dsh-llm-scripted),
 * with one tool, `get_time` (result `noon`), and `welcome` as the REPL's first line.
 */
export async function scriptedApp(welcome: string, responses: unknown[]): Promise<{ file: string; dir: string }> {
  const { file, dir } = await writeApp(`
- id: app
  name: dsh-stdio-demo
  config: { persistenceRoot: ./sessions, welcome: ${JSON.stringify(welcome)}, model: script-model }
- id: tools
  name: dsh-tools-static
  config: { tools: [{ name: get_time, description: Time., result: noon }] }
- id: script
  name: dsh-llm-scripted
  config: { models: [script-model], script: ./script.json }
`)
  await writeFile(join(dir, 'script.json'), JSON.stringify({ responses }))
  return { file, dir }
}
