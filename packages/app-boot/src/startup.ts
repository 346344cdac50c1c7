import type { Context, Fiber } from 'cordis'
import type { Loader } from 'cordisjs-plugin-loader'
import type { AppEntry } from './app-file.ts'
import { MAX_TIMER_MS } from 'dsh-core'
import { AppBootError, showValue } from './errors.ts'
import type { PendingEntry } from 'dsh-core'

/** The startup timeout when neither `startupTimeoutMs` nor `DSH_STARTUP_TIMEOUT_MS` sets one. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 15_000
export const STARTUP_TIMEOUT_ENV = 'DSH_STARTUP_TIMEOUT_MS'

// FiberState is a const enum in cordis's types; isolatedModules forbids reading it across packages.
const PENDING = 0

/** The startup timeout from the boot option, else the environment, else the default; a bad value is a AppBootError. */
export function startupTimeoutMs(option: number | undefined, env = process.env[STARTUP_TIMEOUT_ENV]): number {
  const expected = `expected a whole number of milliseconds from 0 to ${MAX_TIMER_MS} (a Node timer fires a longer one at once), e.g. ${DEFAULT_STARTUP_TIMEOUT_MS}`
  if (option !== undefined) {
    if (Number.isInteger(option) && option >= 0 && option <= MAX_TIMER_MS) return option
    throw new AppBootError('INVALID_OPTION', `invalid startupTimeoutMs ${showValue(option)}; ${expected}`)
  }
  if (env === undefined || env === '') return DEFAULT_STARTUP_TIMEOUT_MS
  const digits = env.trim()
  if (/^\d+$/.test(digits) && Number(digits) <= MAX_TIMER_MS) return Number(digits)
  throw new AppBootError('INVALID_OPTION', `invalid ${STARTUP_TIMEOUT_ENV} ${showValue(env)}; ${expected}`)
}

/**
 * What is still starting, per top-level entry id: the entry's import (`_initTask`) and every fiber under
 * it whose start is in flight (`inertia`: an async `apply`, a Service's async init, and the children it
 * awaits). The loader's own `await()` sees entry fibers only; a child plugged without being awaited
 * counts here too.
 */
export function startingTasks(ctx: Context, loader: Loader, entries: readonly AppEntry[]): Map<string, Promise<unknown>[]> {
  const ids = new Set(entries.filter((entry) => !entry.disabled).map((entry) => entry.id))
  const tasks = new Map<string, Promise<unknown>[]>()
  const add = (id: string, task: Promise<unknown>) => {
    const list = tasks.get(id)
    if (list) list.push(task)
    else tasks.set(id, [task])
  }
  for (const id of ids) {
    const init = (loader.store[id] as { _initTask?: Promise<unknown> } | undefined)?._initTask
    if (init) add(id, init)
  }
  for (const runtime of [...ctx.registry.values()]) {
    for (const fiber of [...runtime.fibers] as Fiber<Context>[]) {
      if (!fiber.inertia) continue
      const located = loader.locate(fiber)
      const id = located?.split(':')[0]
      if (id !== undefined && ids.has(id)) add(id, fiber.inertia)
    }
  }
  return tasks
}

/** Entries whose plugin waits for a service nobody provides yet (they start when it appears). */
export function waitingForService(loader: Loader, entries: readonly AppEntry[]): string[] {
  return entries
    .filter((entry) => !entry.disabled && loader.store[entry.id]?.fiber?.state === PENDING)
    .map((entry) => entry.id)
}

/**
 * Waits until no entry is starting, or until `deadline` (a `Date.now()` value). Returns the ids still
 * starting then — with the entries waiting for a service when anything is still starting, because they
 * usually wait for it — in app-file order; empty when everything settled in time.
 */
export async function settleStartup(ctx: Context, loader: Loader, entries: readonly AppEntry[], deadline: number): Promise<string[]> {
  for (;;) {
    const tasks = startingTasks(ctx, loader, entries)
    if (!tasks.size) return []
    const remaining = deadline - Date.now()
    if (remaining <= 0) {
      const pending = new Set([...tasks.keys(), ...waitingForService(loader, entries)])
      return entries.map((entry) => entry.id).filter((id) => pending.has(id))
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([
      Promise.allSettled([...tasks.values()].flat()),
      new Promise((resolve) => { timer = setTimeout(resolve, remaining) }),
    ])
    clearTimeout(timer)
  }
}

/** The one warning line for entries still starting at the timeout. */
export function timeoutWarning(timeoutMs: number, pending: readonly PendingEntry[]): string {
  const list = pending.map((entry) => `"${entry.id}" (${entry.name})`).join(', ')
  return `startup timeout of ${timeoutMs} ms passed; serving without ${pending.length === 1 ? 'the entry' : 'the entries'} still starting: ${list}; `
    + `${pending.length === 1 ? 'it joins' : 'each joins'} when it is up (${STARTUP_TIMEOUT_ENV} sets the timeout)`
}

/**
 * Why a front door cannot serve when the startup timeout passed before its own entry (or one it waits for)
 * was up: the entries still starting, and the knob that gives them longer.
 */
export function stillStarting(timeoutMs: number, pending: readonly PendingEntry[], plugin: string): string {
  const list = pending.map((entry) => `entry "${entry.id}" (${entry.name})`).join(', ')
  return `the startup timeout of ${timeoutMs} ms passed while ${list} ${pending.length === 1 ? 'was' : 'were'} still starting, `
    + `and nothing can be served without the ${plugin} entry; ${STARTUP_TIMEOUT_ENV} sets the timeout`
}
