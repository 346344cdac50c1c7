import type { ToolSchema } from 'dsh-core'
import { Session } from 'dsh-session'
import { round } from './measure.ts'

/**
 * Fold reads must cost O(new events), not O(log): requestHeader(), toolHistory() and messages() are timed
 * right after one append on a 100k-event session and on a 1k-event one; the results are the ratios of the
 * medians. messages() is timed right after an append that adds a message, when it publishes a new frozen
 * array: that extends the last one but is still one array copy of the history's references.
 */
export async function run(): Promise<Record<string, number>> {
  const small = new Feeder(new Session('bench-1k'))
  const large = new Feeder(new Session('bench-100k'))
  small.fill(1_000)
  large.fill(100_000)
  const header_fold_100k_over_1k = compare(small, large, session => session.requestHeader())
  const tool_history_100k_over_1k = compare(small, large, session => session.toolHistory())
  // Timed only after appends that add a message, when a new list is published; after the others the
  // same list comes back and the median would hide the copy.
  const messages_100k_over_1k = compare(small, large, session => session.messages(), MESSAGE_TYPES)
  return {
    header_fold_100k_over_1k: round(header_fold_100k_over_1k),
    tool_history_100k_over_1k: round(tool_history_100k_over_1k),
    messages_100k_over_1k: round(messages_100k_over_1k),
  }
}

const ROUNDS = 4_000
const WARMUP = 500

const MESSAGE_TYPES = new Set(['user/message', 'assistant/message', 'tool/result', 'developer/message'])

function compare(small: Feeder, large: Feeder, read: (session: Session) => unknown, after?: Set<string>): number {
  const times: [number[], number[]] = [[], []]
  for (let index = 0; index < WARMUP + ROUNDS; index++) {
    // Interleaved so both sizes see the same machine state.
    ;[small, large].forEach((feeder, i) => {
      if (after) {
        read(feeder.session)
        while (!after.has(feeder.step()?.type ?? '')) read(feeder.session)
      } else feeder.step()
      const start = process.hrtime.bigint()
      read(feeder.session)
      const elapsed = Number(process.hrtime.bigint() - start)
      if (index >= WARMUP) times[i]!.push(elapsed)
    })
  }
  return median(times[1]) / median(times[0])
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]!
}

function tool(name: string, version = 1): ToolSchema {
  return {
    name,
    description: `${name} (v${version}): does ${name} things`,
    parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'] },
  }
}

const BASE = ['bash', 'edit', 'glob', 'grep', 'read', 'write']

/**
 * Appends a realistic conversation one event at a time: each turn a user message, a header when the
 * prompt or tools changed, a tool round trip and an answer; a tool comes and goes every 10 turns and
 * a definition changes (new sequence) every 200 turns.
 */
class Feeder {
  private queue: (() => { type: string } | void)[] = []
  private turn = 0

  constructor(readonly session: Session) {}

  fill(count: number): void {
    while (this.session.lastSeq < count) this.step()
  }

  /** Appends the next event; returns it (undefined for the header, whose seq is kept instead). */
  step(): { type: string } | void {
    if (!this.queue.length) this.planTurn()
    return this.queue.shift()!()
  }

  private planTurn(): void {
    const session = this.session
    const turn = ++this.turn
    const withExtra = Math.floor(turn / 10) % 2 === 1
    const version = Math.floor(turn / 200) + 1
    const names = withExtra ? [...BASE, 'web_fetch'] : BASE
    const tools = names.map(name => tool(name, name === 'edit' ? version : 1))
    const toolsChanged = turn % 10 === 0 && turn > 0
    const newHeader = turn === 1 || toolsChanged || turn % 3 === 0 || turn % 200 === 0
    const call = { id: `call-${turn}`, name: 'read', arguments: { path: `src/file-${turn}.ts` } }
    let headerSeq = 0
    this.queue.push(
      () => session.append('turn/start', { turn }),
      () => session.append('user/message', { turn, text: `Please look at file ${turn} and summarize it.` }),
      () => session.append('step/start', { turn, step: 1 }),
    )
    if (newHeader) {
      this.queue.push(() => {
        headerSeq = session.append('request/header', {
          turn, step: 1, reason: turn === 1 ? 'initial' : 'change',
          header: { model: 'scripted-echo', system: `You are DSH. Turn block ${Math.floor(turn / 3)}.`, tools },
        }).seq
      })
      if (toolsChanged) {
        this.queue.push(() => session.append('developer/message', {
          turn, step: 1, source: 'tool-registry', headerSeq,
          added: withExtra ? ['web_fetch'] : [], removed: withExtra ? [] : ['web_fetch'],
        }))
      }
    }
    this.queue.push(
      () => session.append('assistant/message', { turn, step: 1, text: '', toolCalls: [call] }),
      () => session.append('tool/call', { turn, step: 1, ...call }),
      () => session.append('tool/result', { turn, step: 1, id: call.id, name: 'read', output: 'x'.repeat(400), isError: false }),
      () => session.append('step/end', { turn, step: 1 }),
      () => session.append('step/start', { turn, step: 2 }),
      () => session.append('assistant/message', {
        turn, step: 2, text: `File ${turn} defines a parser.`, toolCalls: [],
        usage: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 1100, cacheWriteTokens: 0 },
      }),
      () => session.append('step/end', { turn, step: 2 }),
      () => session.append('turn/end', { turn, reason: 'done' }),
    )
  }
}

export const targets = { header_fold_100k_over_1k: 2, tool_history_100k_over_1k: 2 }
