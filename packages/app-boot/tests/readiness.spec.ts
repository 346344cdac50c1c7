import { afterEach, describe, expect, it, vi } from 'vitest'
import { AppBootError, boot, startApp } from '../src/index.ts'
import { DEFAULT_STARTUP_TIMEOUT_MS } from '../src/startup.ts'
import type { BootOptions, BootedApp, StartingApp } from '../src/boot.ts'
import type {} from './fixtures/slow.ts'
import { resolveFixture } from './fixtures/names.ts'
import { rejection, writeApp } from './setup.ts'

const running: { dispose(): Promise<void> }[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
  await Promise.all(running.splice(0).map((app) => app.dispose()))
})

/** Every line the app writes to stderr while the test runs. */
function stderrLines(): string[] {
  const lines: string[] = []
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => {
    lines.push(...String(chunk).split('\n').filter(Boolean))
    return true
  })
  return lines
}

async function options(yaml: string, extra: Partial<BootOptions> = {}): Promise<BootOptions> {
  const { file } = await writeApp(yaml)
  return { file, resolve: resolveFixture, logLevel: 'info', ...extra }
}

async function booted(yaml: string, extra: Partial<BootOptions> = {}): Promise<BootedApp> {
  const app = await boot(await options(yaml, extra))
  running.push(app)
  return app
}

/** Boots `yaml` while capturing stderr, and says how long the boot took. */
async function timedBoot(yaml: string, extra: Partial<BootOptions> = {}) {
  const lines = stderrLines()
  const before = Date.now()
  const app = await booted(yaml, extra)
  return { app, lines, elapsed: Date.now() - before }
}

async function started(yaml: string, extra: Partial<BootOptions> = {}): Promise<StartingApp> {
  const app = await startApp(await options(yaml, extra))
  running.push(app)
  return app
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the startup barrier', () => {
  it('is ready only when every async start has finished, including a child plugged without await', async () => {
    const { app, lines, elapsed } = await timedBoot(`
- { id: fast, name: fixture-probe }
- { id: slow, name: fixture-slow, config: { startMs: 300 } }
- { id: parent, name: fixture-slow, config: { startMs: 400, child: true } }
`)
    expect(elapsed).toBeGreaterThanOrEqual(390)
    expect(app.readiness).toMatchObject({ timedOut: false, pending: [] })
    expect(app.ctx.readiness.isReady).toBe(true)
    expect(app.ctx.readiness.pending()).toEqual([])
    expect(lines).toEqual([])
  })

  it('at the startup timeout serves without the entries still starting, named in one warning line', async () => {
    const { app, lines, elapsed } = await timedBoot(`
- { id: fast, name: fixture-probe }
- { id: slow, name: fixture-slow, config: { startMs: 800 } }
- { id: waits, name: fixture-needs-slow }
- { id: provider, name: fixture-slow, config: { startMs: 900, provide: true } }
`, { startupTimeoutMs: 200 })
    expect(elapsed).toBeGreaterThanOrEqual(195)
    expect(elapsed).toBeLessThan(700)
    const pending = [
      { id: 'slow', name: 'fixture-slow' }, { id: 'waits', name: 'fixture-needs-slow' }, { id: 'provider', name: 'fixture-slow' },
    ]
    expect(app.readiness).toMatchObject({ timedOut: true, pending })
    expect(lines).toEqual([
      '[warn] app-boot: startup timeout of 200 ms passed; serving without the entries still starting: '
      + '"slow" (fixture-slow), "waits" (fixture-needs-slow), "provider" (fixture-slow); each joins when it is up '
      + '(DSH_STARTUP_TIMEOUT_MS sets the timeout)',
    ])
    expect(app.ctx.readiness.pending()).toEqual(pending)

    // each late entry says once that it is up; the one that waited for a service starts with its provider
    await vi.waitFor(() => expect(app.ctx.readiness.pending()).toEqual([]), { timeout: 3000, interval: 20 })
    const later = lines.slice(1).map((line) => line.replace(/\d+\.\d s/, 'N s')).sort()
    expect(later).toEqual(['provider', 'slow', 'waits'].map((id) => `[info] app-boot: entry "${id}" (${id === 'waits' ? 'fixture-needs-slow' : 'fixture-slow'}) `
      + 'started N s after the boot began, after the app was ready; its tools joined mid-session'))
    expect(app.entries.map((entry) => entry.fiber?.state)).toEqual([2, 2, 2, 2])
  })

  it('logs an entry that fails after the app was ready as one error line naming it, and keeps serving', async () => {
    const lines = stderrLines()
    const app = await booted('- { id: flaky, name: fixture-slow, config: { startMs: 300, fail: cannot reach the server } }\n', { startupTimeoutMs: 50 })
    expect(app.readiness.pending).toEqual([{ id: 'flaky', name: 'fixture-slow' }])
    await vi.waitFor(() => expect(app.ctx.readiness.pending()).toEqual([]), { timeout: 3000, interval: 20 })
    expect(lines.filter((line) => line.startsWith('[error] app-boot'))).toEqual([
      '[error] app-boot: entry "flaky" (fixture-slow) failed to start: cannot reach the server after the app was ready; serving without it',
    ])
  })

  it('fails the boot for an entry that failed before the timeout, as before', async () => {
    const error = await rejection(boot(await options('- { id: bad, name: fixture-slow, config: { startMs: 20, fail: no port } }\n', { logLevel: 'silent' })))
    expect(error).toBeInstanceOf(AppBootError)
    expect(error.message).toMatch(/entry "bad" \(fixture-slow\): failed to start: no port$/)
  })

  it('still reports a service nobody provides when nothing is starting', async () => {
    const error = await rejection(boot(await options('- { id: waits, name: fixture-needs-slow }\n', { logLevel: 'silent', startupTimeoutMs: 50 })))
    expect(error.code).toBe('MISSING_SERVICE')
  })

  it('takes the timeout from DSH_STARTUP_TIMEOUT_MS, and the option over it', async () => {
    vi.stubEnv('DSH_STARTUP_TIMEOUT_MS', '60')
    stderrLines()
    const fromEnv = await booted('- { id: slow, name: fixture-slow, config: { startMs: 2000 } }\n')
    expect(fromEnv.readiness.timedOut).toBe(true)
    const fromOption = await booted('- { id: slow, name: fixture-slow, config: { startMs: 200 } }\n', { startupTimeoutMs: 5000 })
    expect(fromOption.readiness.timedOut).toBe(false)
    expect(DEFAULT_STARTUP_TIMEOUT_MS).toBe(15_000)
  })

  it.each([['abc'], ['-5'], ['1.5'], ['10s'], ['2147483648']])('refuses DSH_STARTUP_TIMEOUT_MS=%s, naming it and what is valid', async (value) => {
    vi.stubEnv('DSH_STARTUP_TIMEOUT_MS', value)
    const error = await rejection(boot(await options('- { id: fast, name: fixture-probe }\n')))
    expect(error).toBeInstanceOf(AppBootError)
    expect(error.code).toBe('INVALID_OPTION')
    expect(error.message).toBe(`invalid DSH_STARTUP_TIMEOUT_MS "${value}" (a string); expected a whole number of milliseconds from 0 to 2147483647 `
      + '(a Node timer fires a longer one at once), e.g. 15000')
  })

  it.each([[-1], [2.5], [Number.NaN], [2 ** 31]])('refuses startupTimeoutMs %s', async (value) => {
    const error = await rejection(boot(await options('- { id: fast, name: fixture-probe }\n', { startupTimeoutMs: value })))
    expect(error.code).toBe('INVALID_OPTION')
    expect(error.message).toMatch(/^invalid startupTimeoutMs .*; expected a whole number of milliseconds from 0 to 2147483647 \(a Node timer fires a longer one at once\), e.g. 15000$/)
  })
})

describe('readiness while starting', () => {
  it('names what is still starting, then declares ready once, with app/ready and afterReady', async () => {
    const app = await started(`
- { id: fast, name: fixture-probe }
- { id: slow, name: fixture-slow, config: { startMs: 300 } }
`)
    expect(await app.whenProvided('probe')).toBeDefined()
    expect(app.readiness.isReady).toBe(false)
    expect(app.readiness.pending()).toEqual([{ id: 'slow', name: 'fixture-slow' }])
    const events: BootedApp['readiness'][] = []
    app.ctx.on('app/ready', (report) => { events.push(report) })
    const callbacks: string[] = []
    app.readiness.afterReady(app.ctx, () => callbacks.push('after'))
    const booted = await app.ready
    expect(events).toEqual([booted.readiness])
    expect(callbacks).toEqual(['after'])
    expect(app.readiness.readyReport).toBe(booted.readiness)
    // once ready, afterReady runs at once (in a microtask)
    app.readiness.afterReady(app.ctx, () => callbacks.push('late'))
    await Promise.resolve()
    expect(callbacks).toEqual(['after', 'late'])
  })

  it('does not run afterReady callbacks whose plugin was disposed first', async () => {
    const app = await started('- { id: slow, name: fixture-slow, config: { startMs: 200 } }\n')
    const calls: string[] = []
    const fiber = app.ctx.plugin({ name: 'waiter', apply: (ctx) => { app.readiness.afterReady(ctx, () => calls.push('ran')) } })
    await fiber
    await fiber.dispose()
    await app.ready
    await sleep(10)
    expect(calls).toEqual([])
  })

  it('whenProvided resolves undefined when the app got ready without the service, and on a failed boot', async () => {
    const app = await started('- { id: fast, name: fixture-probe }\n')
    expect(await app.whenProvided('slowService')).toBeUndefined()
    const failing = await startApp(await options('- { id: bad, name: fixture-slow, config: { startMs: 10, fail: boom } }\n', { logLevel: 'silent' }))
    expect(await failing.whenProvided('slowService')).toBeUndefined()
    expect((await rejection(failing.ready)).message).toMatch(/failed to start: boom$/)
  })

  it('disposing a starting app does not wait for a start it no longer needs', async () => {
    const app = await startApp(await options('- { id: slow, name: fixture-slow, config: { startMs: 10000 } }\n', { startupTimeoutMs: 20_000 }))
    const before = Date.now()
    await app.dispose()
    expect(Date.now() - before).toBeLessThan(2000)
  })
})
