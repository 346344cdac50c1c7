import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import SessionStore, { Session } from 'dsh-session'
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
    const mirror = new Session('mirror')
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
    if (args.includes('--big-log')) result.log_open_600mb_s = await bigLog(dir)
    return result
  } finally {
    await fiber?.dispose()
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * Writes a log of at least 600 MB and times `open()` of it. The turns are logged by a real `Session` (so
 * every line is an event the store writes), a block at a time, and written with their seqs renumbered:
 * writing 600 MB through one session would hold all of it in memory twice over and take minutes.
 */
async function bigLog(dir: string): Promise<number> {
  const path = join(dir, 'big.jsonl')
  const file = openSync(path, 'w')
  let seq = 0
  let bytes = 0
  for (let turn = 1; bytes < BIG_LOG_BYTES;) {
    const block = new Session('block')
    for (let i = 0; i < 1000; i++) turnEvents(block, turn++)
    const lines = block.events().map((event) => JSON.stringify({ ...event, seq: ++seq }) + '\n').join('')
    writeSync(file, lines)
    bytes += Buffer.byteLength(lines)
  }
  closeSync(file)
  const reader = new Context()
  await reader.plugin(SessionStore, { persistenceRoot: dir, persist: true } as any)
  const start = performance.now()
  const reopened = await reader.sessions.open('big')
  const seconds = (performance.now() - start) / 1000
  await reader.sessions.close('big')
  if (reopened.lastSeq !== seq) throw new Error(`reopened ${reopened.lastSeq} events of ${seq}`)
  return round(seconds, 1)
}

export const targets = { jsonl_turn_durable_over_floor: 2 }
