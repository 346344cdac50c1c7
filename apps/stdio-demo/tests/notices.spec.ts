import { describe, expect, it } from 'vitest'
import { App, appYaml, writeApp } from './setup.ts'

async function lateToolRun(env: Record<string, string>): Promise<string> {
  const { file } = await writeApp(appYaml({}, [{ name: 'early' }, { name: 'late', delayMs: 1500 }, { name: 'later', delayMs: 1500 }]))
  // the first turn goes out at a short startup timeout, so the late tools join mid-session; logs stay quiet
  const app = new App([file], { env: { DSH_STARTUP_TIMEOUT_MS: '300', DSH_LOG_LEVEL: 'error', ...env } })
  // early and the harness's agent tool
  await app.waitForTools(2)
  app.send('one')
  expect(await app.nextLine()).toBe('echo: one')
  await app.waitForTools(4)
  app.send('two')
  expect(await app.nextLine()).toBe('echo: two')
  const { code, stderr } = await app.finish()
  expect(code).toBe(0)
  return stderr
}

describe('tool changes shown to the user', () => {
  it('prints the context notice of a tool-list change before the answer of the turn that carries it', async () => {
    expect(await lateToolRun({ LANG: 'en_US.UTF-8', LC_ALL: '', LC_MESSAGES: '' })).toBe('(2 tools changed: +late, +later)\n')
  })

  it('writes it in Chinese under a Chinese locale', async () => {
    expect(await lateToolRun({ LANG: 'zh_CN.UTF-8', LC_ALL: '', LC_MESSAGES: '' })).toBe('(工具变更（2 个）：+late、+later)\n')
  })
})
