import { Context, Service } from 'cordis'

declare module 'cordis' {
  interface Context {
    readiness: Readiness
  }
  interface Events {
    /** Emitted (sync, `emit`) once, when the app becomes ready; listeners added later never see it: use `readiness.ready`. */
    'app/ready'(report: ReadyReport): void
  }
}

/** An app entry that has not finished starting: its id and the plugin name its app file gives. */
export interface PendingEntry {
  id: string
  name: string
}

/** How the app became ready. */
export interface ReadyReport {
  /** Milliseconds from the start of the boot to readiness. */
  elapsedMs: number
  /** True when the startup timeout passed with entries still starting. */
  timedOut: boolean
  /** The entries still starting at that moment (empty unless `timedOut`); each joins when it is up. */
  pending: PendingEntry[]
}

/**
 * The app's startup barrier, under the ctx key `readiness` in the root context of a booted app.
 * `dsh-app-boot` provides it in the root context before any entry starts and declares the app ready when every entry has
 * started or the startup timeout passed. Front doors serve the first turn after `ready`; plugins that
 * act "after ready" wait for it in an effect — never in their own start, which the barrier waits for.
 */
export class Readiness extends Service {
  /** Resolves once, when the app is ready. Never rejects: a failed boot disposes the app instead. */
  readonly ready: Promise<ReadyReport>
  private report: ReadyReport | undefined
  private readonly starting = new Map<string, PendingEntry>()
  private resolve!: (report: ReadyReport) => void

  /**
   * True when the app was booted to be inspected, never served (`boot({ inspection: true })`, as `dsh-prompt` does):
   * no model is called, so a plugin may skip a start-time check of a secret it needs only for a model call.
   */
  readonly inspection: boolean

  constructor(ctx: Context, config: { inspection?: boolean } = {}) {
    super(ctx, 'readiness')
    this.inspection = config?.inspection === true
    this.ready = new Promise((resolve) => { this.resolve = resolve })
  }

  /** True once `ready` has resolved (its report is then `readyReport`). */
  get isReady(): boolean {
    return this.report !== undefined
  }

  /** How the app became ready, once it is. */
  get readyReport(): ReadyReport | undefined {
    return this.report
  }

  /** The entries still starting now, in app-file order (before and after readiness). */
  pending(): PendingEntry[] {
    return [...this.starting.values()]
  }

  /** Boot's bookkeeping: an entry began starting (`true`) or finished, either way (`false`). */
  track(entry: PendingEntry, starting: boolean): void {
    if (starting) this.starting.set(entry.id, entry)
    else this.starting.delete(entry.id)
  }

  /** Boot's bookkeeping: declares the app ready, once; resolves `ready` and emits `app/ready`. */
  declareReady(report: ReadyReport): void {
    if (this.report) return
    this.report = report
    this.resolve(report)
    this.ctx.emit('app/ready', report)
  }

  /**
   * Runs `callback` once the app is ready (at once, in a microtask, when it already is), unless `ctx`
   * is disposed first. Returns the disposer; it is also an effect of `ctx`.
   */
  afterReady(ctx: Context, callback: (report: ReadyReport) => void): () => void {
    let live = true
    const dispose = ctx.effect(() => () => { live = false }, 'readiness.afterReady()')
    this.ready.then((report) => { if (live) callback(report) })
    return dispose
  }
}

export default Readiness
