import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { defaultSessionRoot } from 'dsh-session'
import { describe, expect, it } from 'vitest'
import { App, appYaml, headers, run, sessionEvents, tempDir, writeApp } from './setup.ts'

const README = new URL('../../../README.md', import.meta.url)

/** The app file of the root README's "An app file" section, exactly as a reader would copy it. */
async function readmeApp(): Promise<string> {
  const text = await readFile(README, 'utf8')
  const section = text.slice(text.indexOf('## An app file'))
  const match = /```yaml\n([\s\S]*?)```/.exec(section)
  if (!match) throw new Error('README.md: no yaml block in "An app file"')
  return match[1]
}

/** Runs `echo hi | dsh-stdio-demo app.yml` in a fresh folder; returns the exit and the logged request/header lines. */
async function pipedRun(yaml: string) {
  const cwd = await tempDir()
  const state = await tempDir()
  await writeFile(join(cwd, 'app.yml'), yaml)
  const exit = await run(['app.yml'], 'hi\n', { cwd, env: { XDG_STATE_HOME: state } })
  const events = await sessionEvents(defaultSessionRoot(cwd, { XDG_STATE_HOME: state }))
  return { exit, headers: events.filter((event) => event.type === 'request/header').map((event) => JSON.stringify(event.data)) }
}

describe('the startup barrier behind the terminal front door', () => {
  it('serves the first piped line only when every startup delay has passed', async () => {
    const { file, sessions } = await writeApp(appYaml({}, [{ name: 'slow', delayMs: 400 }, { name: 'fast', delayMs: 50 }, { name: 'now' }]))
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 0, stdout: 'echo: hello\n', stderr: '' })
    const logged = headers(await sessionEvents(sessions))
    expect(logged.map((data) => data.header.tools.map((tool: { name: string }) => tool.name))).toEqual([['agent', 'fast', 'now', 'slow']])
  })

  it('makes the README race recipe hold: swapped delays give byte-identical, non-empty headers, with and without toolOrder', async () => {
    const yaml = await readmeApp()
    expect(yaml).toMatch(/delayMs: 30 }[\s\S]*delayMs: 10 }/)
    const swapped = yaml.replace('delayMs: 30 }', 'delayMs: @ }').replace('delayMs: 10 }', 'delayMs: 30 }').replace('delayMs: @ }', 'delayMs: 10 }')
    const withOrder = (text: string) => text.replace('# toolOrder:', 'toolOrder:')
    expect(withOrder(yaml)).not.toBe(yaml)
    const runs = await Promise.all([yaml, swapped, withOrder(yaml), withOrder(swapped)].map(pipedRun))
    for (const { exit } of runs) expect(exit).toMatchObject({ code: 0, stdout: 'echo: hi\n', stderr: '' })
    for (const { headers } of runs) expect(headers).toHaveLength(1)
    const names = (line: string) => JSON.parse(line).header.tools.map((tool: { name: string }) => tool.name)
    expect(runs[1].headers[0]).toBe(runs[0].headers[0])
    expect(names(runs[0].headers[0])).toEqual(['agent', 'list_dir', 'read_file'])
    expect(runs[3].headers[0]).toBe(runs[2].headers[0])
    expect(names(runs[2].headers[0])).toEqual(['read_file', 'list_dir', 'agent'])
  })

  it('at the startup timeout serves without a slow source, which then joins as a mid-session addition', async () => {
    const { file, sessions } = await writeApp(appYaml({}, [{ name: 'slow_tool', delayMs: 1500 }, { name: 'fast_tool' }]))
    const app = new App([file], { env: { DSH_STARTUP_TIMEOUT_MS: '300' } })
    app.send('hello')
    expect(await app.nextLine()).toBe('echo: hello')
    expect(app.stderr).toBe('[warn] app-boot: startup timeout of 300 ms passed; serving without the entry still starting: '
      + '"tools-slow_tool" (dsh-tools-static); it joins when it is up (DSH_STARTUP_TIMEOUT_MS sets the timeout)\n')
    await app.until(() => app.stderr.includes('started'), 'the slow entry joining')
    expect(app.stderr.split('\n')[1]).toMatch(/^\[info\] app-boot: entry "tools-slow_tool" \(dsh-tools-static\) started \d+\.\d s after the boot began, after the app was ready; its tools joined mid-session$/)
    app.send('again')
    const { code, stdout } = await app.finish()
    expect(code).toBe(0)
    expect(stdout).toBe('echo: hello\necho: again\n')
    const events = await sessionEvents(sessions)
    expect(headers(events).map((data) => [data.reason, data.header.tools.map((tool: { name: string }) => tool.name)]))
      .toEqual([['initial', ['agent', 'fast_tool']], ['change', ['agent', 'fast_tool', 'slow_tool']]])
    const developer = events.filter((event) => event.type === 'developer/message')
    expect(developer.map((event) => [event.data.added, event.data.removed])).toEqual([[['slow_tool'], []]])
  })
})

describe('a signal while the app starts', () => {
  it('stops it at once, exit 0, without waiting for the slow source', async () => {
    const { file } = await writeApp(appYaml({}, [{ name: 'slow_tool', delayMs: 20_000 }]))
    const app = new App([file], { env: { DSH_STARTUP_TIMEOUT_MS: '30000' } })
    // let the bin load its sources and install its signal handlers; the slow entry is then still starting
    await new Promise((resolve) => setTimeout(resolve, 4000))
    const before = Date.now()
    const exit = await app.stop('SIGTERM')
    expect(Date.now() - before).toBeLessThan(5000)
    expect(exit).toMatchObject({ code: 0, stdout: '' })
  })
})
