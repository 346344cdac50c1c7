import type { ToolSchema } from 'dsh-core'
import { promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Message } from 'cordis'
import { afterEach } from 'vitest'
import type { Session, SessionStoreConfig } from '../src/index.ts'
import { SessionStore } from '../src/store.ts'

const cleanups: (() => Promise<unknown>)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A fresh temp directory, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'dsh-session-'))
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

/** A real Context with the store mounted, plus the log messages it emits. */
export async function setup(config?: Partial<SessionStoreConfig>) {
  const ctx = new Context()
  const logs: Message[] = []
  ctx.logger.exporter({ export: message => logs.push(message) })
  const fiber = await ctx.plugin(SessionStore, config as SessionStoreConfig)
  cleanups.push(() => fiber.dispose())
  return { ctx, fiber, logs, sessions: ctx.sessions as SessionStore }
}

export function tool(name: string, description = `${name} tool`, parameters: object = { type: 'object', properties: {} }): ToolSchema {
  return { name, description, parameters }
}

/** Logs a request header with these tools and returns its seq. */
export function header(session: Session, tools: ToolSchema[], reason: 'initial' | 'resume' | 'change' = 'change'): number {
  return session.append('request/header', { turn: 1, step: 1, reason, header: { model: 'm', system: 's', tools } }).seq
}

/** Logs a tool-registry developer message through `headerSeq` and returns its seq. */
export function registryUpdate(session: Session, headerSeq: number, added: string[], removed: string[]): number {
  return session.append('developer/message', { turn: 1, step: 1, source: 'tool-registry', added, removed, headerSeq }).seq
}

/** One ordinary turn: user text, a tool round trip, an answer. */
export function chatTurn(session: Session, turn: number): void {
  session.append('turn/start', { turn })
  session.append('user/message', { turn, text: `question ${turn}` })
  session.append('step/start', { turn, step: 1 })
  session.append('assistant/message', { turn, step: 1, text: '', toolCalls: [{ id: `c${turn}`, name: 'read', arguments: { path: 'a' } }] })
  session.append('tool/call', { turn, step: 1, id: `c${turn}`, name: 'read', arguments: { path: 'a' } })
  session.append('tool/result', { turn, step: 1, id: `c${turn}`, name: 'read', output: 'contents', isError: false })
  session.append('step/end', { turn, step: 1 })
  session.append('assistant/message', {
    turn, step: 2, text: `answer ${turn}`, toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 8, cacheWriteTokens: 0 },
  })
  session.append('turn/end', { turn, reason: 'done' })
}

export async function readLines(path: string): Promise<string[]> {
  const text = await fs.readFile(path, 'utf8')
  return text.split('\n')
}
