import { promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import SessionStore, { type SessionStoreApi } from 'dsh-session'
import { contractTurn } from 'dsh-session/testing'
import PgSessionStore from 'dsh-session-postgres'
import { startTestCluster, throwawaySchema } from 'dsh-session-postgres/testing'
import { round, sideBySide } from './measure.ts'

const OPEN_EVENTS = 100_000
const TURN_EVENTS = 13

/**
 * PostgreSQL against JSONL, side by side in one run: appending one durable 13-event turn (append, then
 * wait for the commit), and opening a 100k-event session in a fresh store. The server is
 * DSH_TEST_PG_URL, or a throwaway cluster with fsync on; without either both keys are null and a note says why.
 */
export async function run(): Promise<Record<string, number | string | null>> {
  const skipped = (why: string) => ({ pg_append_turn_over_jsonl: null, pg_open_100k_over_jsonl: null, pg_note: `skipped: ${why}` })
  const cluster = await startTestCluster({ fsync: true }).catch((error: Error) => error)
  if (!cluster) return skipped('no PostgreSQL server binaries and no DSH_TEST_PG_URL')
  if (cluster instanceof Error) return skipped(`the throwaway cluster failed to start: ${cluster.message.split('\n')[0]}`)
  try {
    return await measure(cluster.url)
  } catch (error) {
    return skipped(`PostgreSQL is not usable: ${(error as Error).message.split('\n')[0]}`)
  } finally {
    await cluster.stop()
  }
}

async function measure(url: string): Promise<Record<string, number>> {
  const root = await fs.mkdtemp(join(tmpdir(), 'dsh-bench-pg-'))
  // a server given by DSH_TEST_PG_URL outlives the run: the schema is dropped afterwards, leaving it as it was
  const { schema, drop } = throwawaySchema(url)
  const stores: (() => Promise<void>)[] = []
  const jsonl = async () => mount(new Context(), SessionStore, { persistenceRoot: root, persist: true, durability: 'turn' }, stores)
  const postgres = async () => mount(new Context(), PgSessionStore, { url, schema }, stores)
  try {
    const [a, b] = [await jsonl(), await postgres()]
    const sa = await a.create('append')
    const sb = await b.create('append')
    let turnA = 0
    let turnB = 0
    const append = await sideBySide({
      jsonl: async () => { contractTurn(sa, ++turnA); await sa.flushed() },
      postgres: async () => { contractTurn(sb, ++turnB); await sb.flushed() },
    }, 60)

    for (const store of [a, b]) {
      const big = await store.create('big')
      for (let turn = 1; turn <= OPEN_EVENTS / TURN_EVENTS; turn++) contractTurn(big, turn)
      await store.flush()
      await store.close('big')
    }
    const open = await sideBySide({
      jsonl: async () => { const store = await jsonl(); await store.open('big'); await stores.pop()!() },
      postgres: async () => { const store = await postgres(); await store.open('big'); await stores.pop()!() },
    }, 3, 1)
    return {
      pg_append_turn_over_jsonl: round(append.postgres! / append.jsonl!),
      pg_open_100k_over_jsonl: round(open.postgres! / open.jsonl!),
    }
  } finally {
    for (const dispose of stores.reverse()) await dispose()
    await fs.rm(root, { recursive: true, force: true })
    await drop().catch(() => {})
  }
}

async function mount(ctx: Context, plugin: any, config: object, stores: (() => Promise<void>)[]): Promise<SessionStoreApi> {
  const fiber = await ctx.plugin(plugin, config)
  stores.push(() => fiber.dispose())
  return ctx.sessions
}
