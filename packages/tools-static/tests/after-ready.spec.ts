import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startApp } from 'dsh-app-boot'

type StartingApp = Awaited<ReturnType<typeof startApp>>
import { loadStatic, setup, sleep } from './setup.ts'

const PLUGIN = new URL('../src/index.ts', import.meta.url).href
const running: StartingApp[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((app) => app.dispose()))
})

/** Starts a real app file: the system prompt, the tool registry and the given tools-static entries. */
async function start(...tools: unknown[][]): Promise<StartingApp> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-tools-static-'))
  const file = join(dir, 'app.yml')
  const lines = ['- { id: prompt, name: dsh-system-prompt }', '- { id: tools, name: dsh-tools }']
  tools.forEach((list, index) => lines.push(`- { id: static-${index}, name: ${PLUGIN}, config: { tools: ${JSON.stringify(list)} } }`))
  await writeFile(file, `${lines.join('\n')}\n`)
  const app = await startApp({ file, resolve: (name) => import.meta.resolve(name), logLevel: 'silent' })
  running.push(app)
  return app
}

describe('afterReadyMs', () => {
  it('registers a tool that long after the app is ready; delayMs tools are in before ready', async () => {
    const app = await start(
      [{ name: 'boot_tool', description: 'd', delayMs: 150 }],
      [{ name: 'late_tool', description: 'd', afterReadyMs: 100 }],
    )
    const booted = await app.ready
    expect(booted.readiness.elapsedMs).toBeGreaterThanOrEqual(145)
    const readyAt = Date.now()
    expect(app.ctx.tools.list()).toEqual(['boot_tool'])
    await expect.poll(() => app.ctx.tools.list(), { timeout: 2000, interval: 5 }).toEqual(['boot_tool', 'late_tool'])
    expect(Date.now() - readyAt).toBeGreaterThanOrEqual(90)
  })

  it('counts from readiness, not from its own start, so a slow startup elsewhere does not eat the delay', async () => {
    const app = await start(
      [{ name: 'late_tool', description: 'd', afterReadyMs: 50 }],
      [{ name: 'slow_boot', description: 'd', delayMs: 300 }],
    )
    await sleep(200)
    expect(app.ctx.tools.list()).toEqual([])
    await app.ready
    expect(app.ctx.tools.list()).toEqual(['slow_boot'])
    await expect.poll(() => app.ctx.tools.list(), { timeout: 2000, interval: 5 }).toEqual(['late_tool', 'slow_boot'])
  })

  it('without an app (a bare Context) counts from the plugin start', async () => {
    const { ctx } = await setup()
    await loadStatic(ctx, { tools: [{ name: 'later', description: 'd', afterReadyMs: 40 }, { name: 'boot', description: 'd', delayMs: 20 }] })
    expect(ctx.tools.list()).toEqual(['boot'])
    await expect.poll(() => ctx.tools.list(), { timeout: 1000, interval: 5 }).toEqual(['boot', 'later'])
  })

  it('cancels on dispose: nothing registers after the plugin is gone', async () => {
    const { ctx, errors } = await setup()
    const fiber = await loadStatic(ctx, { tools: [{ name: 'later', description: 'd', afterReadyMs: 30 }] })
    await fiber.dispose()
    await sleep(60)
    expect(ctx.tools.list()).toEqual([])
    expect(errors).toEqual([])
  })

  it('logs, and does not throw, when an after-ready tool is refused at registration', async () => {
    const { ctx, errors } = await setup()
    await loadStatic(ctx, { tools: [{ name: 'taken', description: 'first' }] })
    await loadStatic(ctx, { tools: [{ name: 'taken', description: 'second', afterReadyMs: 5 }] })
    await expect.poll(() => errors.length, { timeout: 1000, interval: 5 }).toBe(1)
    expect(String(errors[0].args[0])).toContain('tool "taken" is already registered')
    expect(ctx.tools.get('taken')?.description).toBe('first')
  })
})
