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

/** Upper bounds for the keys of this module. */
export const targets = { pg_append_turn_over_jsonl: 2 }

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
  return { ...await appendTurnRatio(url), ...await openRatio(url) }
}

/** `pg_append_turn_over_jsonl` on the server at `url` (a throwaway schema); the fleet bench runs it too. */
export async function appendTurnRatio(url: string): Promise<{ pg_append_turn_over_jsonl: number }> {
  return withStores(url, async ({ jsonl, postgres }) => {
    const [a, b] = [await jsonl(), await postgres()]
    const sa = await a.create('append')
    const sb = await b.create('append')
    let turnA = 0
    let turnB = 0
    const append = await sideBySide({
      jsonl: async () => { contractTurn(sa, ++turnA); await sa.flushed() },
      postgres: async () => { contractTurn(sb, ++turnB); await sb.flushed() },
    }, 60)
    return { pg_append_turn_over_jsonl: round(append.postgres! / append.jsonl!) }
  })
}

async function openRatio(url: string): Promise<{ pg_open_100k_over_jsonl: number }> {
  return withStores(url, async ({ jsonl, postgres, stores }) => {
    for (const store of [await jsonl(), await postgres()]) {
      const big = await store.create('big')
      for (let turn = 1; turn <= OPEN_EVENTS / TURN_EVENTS; turn++) contractTurn(big, turn)
      await store.flush()
      await store.close('big')
    }
    const open = await sideBySide({
      jsonl: async () => { const store = await jsonl(); await store.open('big'); await stores.pop()!() },
      postgres: async () => { const store = await postgres(); await store.open('big'); await stores.pop()!() },
    }, 3, 1)
    return { pg_open_100k_over_jsonl: round(open.postgres! / open.jsonl!) }
  })
}

interface Stores {
  jsonl(): Promise<SessionStoreApi>
  postgres(): Promise<SessionStoreApi>
  /** Disposers of the stores mounted so far, in mount order. */
  stores: (() => Promise<void>)[]
}

/** Runs `body` with mounters of a JSONL store (a temp folder) and a PostgreSQL one (a throwaway schema), then removes both. */
async function withStores<T>(url: string, body: (stores: Stores) => Promise<T>): Promise<T> {
  const root = await fs.mkdtemp(join(tmpdir(), 'dsh-bench-pg-'))
  // a server given by DSH_TEST_PG_URL outlives the run: the schema is dropped afterwards, leaving it as it was
  const { schema, drop } = throwawaySchema(url)
  const stores: (() => Promise<void>)[] = []
  const jsonl = async () => mount(new Context(), SessionStore, { persistenceRoot: root, persist: true, durability: 'turn' }, stores)
  const postgres = async () => mount(new Context(), PgSessionStore, { url, schema }, stores)
  try {
    return await body({ jsonl, postgres, stores })
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
