import type { EventSink } from './session.ts'

/**
 * The ordered write queue every store's writer shares: lines appended while a batch is in flight go out
 * together in the next batch, so writes never interleave and order is append order. A store says how a
 * batch is written (`writeBatch`), what a failure means (`fail`, which must set `failure`) and when lines
 * are durable (`flushed`, on top of `allWritten`).
 */
export abstract class WriteQueue implements EventSink {
  private readonly queue: string[] = []
  private queued = 0
  private writtenCount = 0
  private draining: Promise<void> | undefined
  /** What stopped the queue; every later write and flush throws it. */
  protected failure: Error | undefined

  write(line: string): void {
    if (this.failure) throw this.failure
    this.queue.push(line)
    this.queued++
    this.draining ??= this.drain()
  }

  abstract flushed(): Promise<void>

  /** Resolves once every line queued so far is written (handed to the storage); throws the failure. */
  async written(): Promise<void> {
    await this.allWritten()
  }

  /** Lines written so far (handed to the storage; durable only as `flushed` says). */
  get writtenLines(): number {
    return this.writtenCount
  }

  /** Resolves with the number of lines queued so far once they are all written; throws the failure. */
  protected async allWritten(): Promise<number> {
    const target = this.queued
    while (this.writtenCount < target && !this.failure) await this.draining
    if (this.failure) throw this.failure
    return target
  }

  /** Writes one batch, in order; a throw fails the queue. */
  protected abstract writeBatch(batch: string[]): Promise<void>

  /** Records `error` as the queue's failure (once) and reports it. */
  protected abstract fail(error: unknown): void

  /**
   * Awaited (when it returns a promise) before an idle queue takes its first batch: a store whose every batch
   * costs a round trip and a commit waits here so the lines appended right after the first one (a turn's
   * events logged back to back) go out in that one batch. By default the first line goes out at once.
   */
  protected gather(): Promise<void> | undefined {
    return undefined
  }

  private async drain(): Promise<void> {
    try {
      const gathering = this.gather()
      if (gathering) await gathering
      while (this.queue.length && !this.failure) {
        const batch = this.queue.splice(0)
        await this.writeBatch(batch)
        this.writtenCount += batch.length
      }
    } catch (error) {
      this.fail(error)
    } finally {
      this.draining = undefined
    }
  }
}
