import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import SessionStore from 'dsh-session'
import type { Session } from 'dsh-session'
import { round } from './measure.ts'

const TURNS = 60
const BIG_LOG_BYTES = 600 * 2 ** 20

/** The 13 events of a one-tool turn, as the loop logs them. */
function turnEvents(session: Session, turn: number) {
  const call = { id: `call-${turn}`, name: 'read', arguments: { path: `src/file-${turn}.ts` } }
  session.append('turn/start', { turn })
  session.append('user/message', { turn, text: `Please look at file ${turn} and summarize it.` })
  session.append('step/start', { turn, step: 1 })
  session.append('assistant/message', { turn, step: 1, text: '', toolCalls: [call] })
  session.append('tool/call', { turn, step: 1, ...call })
  session.append('tool/result', { turn, step: 1, id: call.id, name: 'read', output: 'x'.repeat(400), isError: false })
  session.append('step/end', { turn, step: 1 })
  session.append('step/start', { turn, step: 2 })
  session.append('assistant/message', { turn, step: 2, text: `File ${turn} defines a parser.`, toolCalls: [] })
  session.append('step/end', { turn, step: 2 })
  session.append('sequence/reset', { reason: 'bench' })
  session.append('user/message', { turn, text: 'thanks' })
  session.append('turn/end', { turn, reason: 'done' })
}

/**
 * 13-event turns on a session with `durability: turn` (append each event, then `flushed()`), against the
 * floor: the same lines written with one `writeSync` and one `fsync` per turn. Alternated turn by turn in
 * one directory, medians compared. With `--big-log`, also writes a 600 MB log and times opening it.
 */
export async function run(args: string[] = []): Promise<Record<string, number>> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-jsonl-bench-'))
  const ctx = new Context()
  let fiber: { dispose(): unknown } | undefined
  try {
    fiber = await ctx.plugin(SessionStore, { persistenceRoot: dir, persist: true, durability: 'turn' } as any)
    const session = await ctx.sessions.create('durable')
    const mirror = new (await import('dsh-session')).Session('mirror')
    const floorFile = openSync(join(dir, 'floor.jsonl'), 'a')
    const ours: number[] = []
    const floor: number[] = []
    for (let turn = 1; turn <= TURNS; turn++) {
      let start = performance.now()
      turnEvents(session, turn)
      await session.flushed()
      ours.push(performance.now() - start)
      const before = mirror.lastSeq
      turnEvents(mirror, turn)
      const lines = mirror.events().slice(before).map((event) => JSON.stringify(event) + '\n').join('')
      start = performance.now()
      writeSync(floorFile, lines)
      fsyncSync(floorFile)
      floor.push(performance.now() - start)
    }
    closeSync(floorFile)
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]
    const result: Record<string, number> = {
      jsonl_turn_durable_ms: round(median(ours), 3),
      jsonl_turn_durable_over_floor: round(median(ours) / median(floor), 2),
    }
    if (args.includes('--big-log')) result.log_open_600mb_s = await bigLog(ctx, dir)
    return result
  } finally {
    await fiber?.dispose()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Writes a log of at least 600 MB (durability none, to write it fast) and times `open()` of it. */
async function bigLog(ctx: Context, dir: string): Promise<number> {
  const session = await ctx.sessions.create('big')
  const path = join(dir, 'big.jsonl')
  for (let turn = 1; ; turn++) {
    turnEvents(session, turn)
    if (turn % 2000 === 0) {
      await session.flushed()
      if ((await stat(path)).size >= BIG_LOG_BYTES) break
    }
  }
  await ctx.sessions.close('big')
  const reader = new Context()
  await reader.plugin(SessionStore, { persistenceRoot: dir, persist: true } as any)
  const start = performance.now()
  const reopened = await reader.sessions.open('big')
  const seconds = (performance.now() - start) / 1000
  await reader.sessions.close('big')
  if (reopened.lastSeq !== session.lastSeq) throw new Error(`reopened ${reopened.lastSeq} events of ${session.lastSeq}`)
  return round(seconds, 1)
}

export const targets = { jsonl_turn_durable_over_floor: 2 }
