// The fleet listing at scale: time per `sessions.fleet.page()` over 100,000 stored sessions, some of them held.
//   node packages/session-postgres/scripts/listing-100k.mjs            (a throwaway cluster, or DSH_TEST_PG_URL)
//   SESSIONS=20000 HELD=20 PAGE=50 node packages/session-postgres/scripts/listing-100k.mjs --json
// Uses dist/: run `node .ci/ensure-build.mjs` after changing src.
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { Context } from 'cordis'
import pg from 'pg'
import { PgSessionStore } from 'dsh-session-postgres'
import { startTestCluster } from 'dsh-session-postgres/testing'

const SESSIONS = Number(process.env.SESSIONS ?? 100_000)
const HELD = Number(process.env.HELD ?? 40)
const PAGE = Number(process.env.PAGE ?? 50)
const PAGES = 30
const json = process.argv.includes('--json')

const cluster = process.env.DSH_TEST_PG_URL ? undefined : await startTestCluster()
const url = process.env.DSH_TEST_PG_URL ?? cluster.url
const schema = `listing_${randomBytes(4).toString('hex')}`
const admin = new pg.Client({ connectionString: url })
await admin.connect()
const ctx = new Context()
const fiber = await ctx.plugin(PgSessionStore, { url, schema })
const store = ctx.sessions
try {
  const s = `"${schema}"`
  const filled = performance.now()
  // one second apart, newest = bench-000001; four events each (created, prompt, turn start and end)
  await admin.query(`INSERT INTO ${s}.sessions (id, created_at) SELECT 'bench-' || lpad(i::text, 6, '0'), now() - i * interval '1 second'
    FROM generate_series(1, $1) i`, [SESSIONS])
  await admin.query(`INSERT INTO ${s}.events (session_id, seq, body)
    SELECT 'bench-' || lpad(i::text, 6, '0'), k, json_build_object('seq', k, 'time', to_char(now() - i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'type', (ARRAY['acp/session', 'turn/start', 'user/message', 'turn/end'])[k],
      'data', (ARRAY[json_build_object('cwd', '/work'), json_build_object('turn', 1), json_build_object('turn', 1, 'text', 'question ' || i),
        json_build_object('turn', 1, 'reason', 'done')])[k])
    FROM generate_series(1, $1) i, generate_series(1, 4) k`, [SESSIONS])
  await admin.query(`ANALYZE ${s}.sessions; ANALYZE ${s}.events`)
  const fillMs = performance.now() - filled
  // held sessions spread over the listing, each with its holder row and lock on a connection of its own
  for (let i = 0; i < HELD; i++) await store.open(`bench-${String(1 + Math.floor(i * SESSIONS / HELD)).padStart(6, '0')}`)

  const timed = async (after) => {
    const start = performance.now()
    const page = await store.fleet.page({ limit: PAGE, after, keep: ['acp/session'] })
    return { ms: performance.now() - start, page }
  }
  const walk = async (after) => {
    const times = []
    for (let i = 0; i < PAGES; i++) {
      const { ms, page } = await timed(after)
      times.push(ms)
      after = page.next
    }
    return times
  }
  await timed() // warm the plan cache and buffers once
  const fromStart = await walk(undefined)
  const middle = { created: new Date(Date.now() - (SESSIONS / 2) * 1000).toISOString().replace('Z', '000Z'), id: 'bench-999999' }
  const fromMiddle = await walk(middle)
  const held = (await store.fleet.page({ limit: 1000 })).sessions.filter((session) => session.holder).length
  const stats = (times) => {
    const sorted = [...times].sort((a, b) => a - b)
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
    return { p50: +at(0.5).toFixed(2), p99: +at(0.99).toFixed(2), max: +sorted.at(-1).toFixed(2) }
  }
  const plan = await admin.query(`EXPLAIN (ANALYZE, BUFFERS) SELECT s.id FROM ${s}.sessions s WHERE (s.created_at, s.id) < ($1::timestamptz, $2)
    ORDER BY s.created_at DESC, s.id DESC LIMIT ${PAGE + 1}`, [middle.created, middle.id])
  const result = {
    sessions: SESSIONS, events: SESSIONS * 4, held: HELD, heldInFirstThousand: held, pageSize: PAGE, pagesTimed: PAGES,
    fillSeconds: +(fillMs / 1000).toFixed(1),
    pageMsFromStart: stats(fromStart), pageMsFromMiddle: stats(fromMiddle),
    keysetPlan: plan.rows.map((row) => row['QUERY PLAN']).filter((line) => /Scan|Execution|Limit/.test(line)).map((line) => line.trim()),
  }
  if (json) console.log(JSON.stringify(result, null, 2))
  else {
    console.log(`fleet listing: ${SESSIONS} sessions (${SESSIONS * 4} events), ${HELD} held, pages of ${PAGE}`)
    console.log(`  page from the start:   p50 ${result.pageMsFromStart.p50} ms, p99 ${result.pageMsFromStart.p99} ms (${PAGES} pages)`)
    console.log(`  page from the middle:  p50 ${result.pageMsFromMiddle.p50} ms, p99 ${result.pageMsFromMiddle.p99} ms (${PAGES} pages)`)
    for (const line of result.keysetPlan) console.log(`  ${line}`)
  }
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {})
  await admin.end()
  await fiber.dispose()
  await cluster?.stop()
}
