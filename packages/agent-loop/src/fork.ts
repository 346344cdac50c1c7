import type { Context } from 'cordis'
import { describeValue, listNames, quote } from 'dsh-core'
import type { Session, SessionEventMap } from 'dsh-session'
import type { TurnEndReason } from './types.ts'
import { AgentLoopError } from './errors.ts'
import { estimateFill, estimateTokens } from './fill.ts'
import { appendCopy, eventsAsItStands, historyCopy } from './fork-seed.ts'
import type { PermissionAsker } from './permission-gate.ts'
import type { Turn } from './turn.ts'
import type { AgentSettings, PromptOptions } from './types.ts'

/** How a child starts: `fork` on the parent's prefix, `fresh` on its own, `side` a fork that answers outside the parent's history. */
export type ForkMode = SessionEventMap['fork/child']['mode']

const MODES: readonly ForkMode[] = ['fork', 'fresh', 'side']

/** What `agent.fork()` takes. */
export interface ForkOptions {
  mode: ForkMode
  /** What the child is asked: its first user message. */
  instruction: string
  /** A few words a person reads: permission questions of the child and listings carry them. */
  description: string
  /** The parent's `agent` tool-call id that asked for the child (absent for a side question). */
  call?: string
  /** Cancels the child's turn; a fork inside a parent's turn is also cancelled with that turn. */
  signal?: AbortSignal
  /** `fresh` only: the child's persona (the `deployment:persona` section of its own scope). */
  persona?: string
  /** `fresh` only: the tools the child is offered, a subset of the parent's; all of them when omitted. */
  tools?: string[]
  /** The child's live updates (a door shows a child's progress under its parent's `agent` call). */
  onUpdate?: PromptOptions['onUpdate']
  /** Asks the person about the child's tool calls; inside a parent's turn, that turn's asker by default. */
  askPermission?: PermissionAsker
}

/** How a child ended: its session id, its final text and its turn's end reason (and message). */
export interface ForkResult {
  child: string
  text: string
  reason: TurnEndReason
  error?: string
}

/** What a fork reads of its parent agent. */
export interface ForkParent {
  readonly id: string
  readonly session: Session
  readonly settings: AgentSettings
  readonly model: string
  /** The parent's running turn, if any: its signal and asker pass to the child. */
  readonly turnInProgress: Turn | undefined
}

/** Children of each parent agent running now (the bound `maxChildren` counts them). */
const running = new WeakMap<ForkParent, number>()

/**
 * Runs a child agent on a session of its own (`<parent session>~<n>`), linked both ways (`fork/child` in the
 * parent's log, `fork/parent` opening the child's), and resolves with its answer. A `fork` or `side` child's
 * log holds a copy of the parent's history behind the request as it stands, so its first request is the
 * parent's bytes and then the instruction; it assembles in the parent's prompt scope and runs tools as the
 * parent. Bad input rejects before anything is logged.
 */
export async function forkAgent(home: Context, parent: ForkParent, options: ForkOptions): Promise<ForkResult> {
  const mode = checkOptions(options, parent.session.requestHeader()?.data.header.tools.map((tool) => tool.name))
  const active = running.get(parent) ?? 0
  const bound = parent.settings.maxChildren
  if (active >= bound) {
    throw new AgentLoopError('FORK_LIMIT', `agent "${parent.id}" already runs ${active} child agent(s), the bound maxChildren = ${bound}; `
      + 'wait for one to end, or raise maxChildren in the app file')
  }
  const loop = home.agentLoop
  const inTurn = parent.turnInProgress
  const copy = mode === 'fresh' ? undefined : historyCopy(eventsAsItStands(parent.session, inTurn !== undefined))
  if (copy) checkWindow(home, parent, copy, options.instruction)
  running.set(parent, active + 1)
  let childId: string | undefined
  try {
    const session = await newChildSession(home, parent.session)
    childId = session.id
    session.append('fork/parent', {
      parent: parent.session.id, mode, description: options.description, ...options.call && { call: options.call }, copied: copy?.lastSeq ?? 0,
    })
    if (copy) appendCopy(session, copy)
    await session.flushed()
    parent.session.append('fork/child', {
      turn: inTurn?.turn ?? parent.session.turns().started, child: session.id, mode, description: options.description, ...options.call && { call: options.call },
    })
    const child = await loop.createAgent({ id: session.id, model: parent.model, ...mode !== 'fresh' && { scope: parent.settings.scope } })
    if (mode === 'fresh') freshPrompt(child.ctx, options)
    const ask = options.askPermission ?? inTurn?.askPermission
    const signals = [options.signal, inTurn?.signal].filter((signal): signal is AbortSignal => signal !== undefined)
    const result = await child.prompt(options.instruction, {
      ...signals.length && { signal: AbortSignal.any(signals) },
      ...options.onUpdate && { onUpdate: options.onUpdate },
      ...ask && { askPermission: (request) => ask({ ...request, fork: { child: session.id, description: options.description } }) },
    })
    return { child: session.id, text: result.text, reason: result.reason, ...result.error !== undefined && { error: result.error } }
  } finally {
    running.set(parent, (running.get(parent) ?? 1) - 1)
    if (childId) await loop.removeAgent(childId).catch(() => {})
  }
}

function checkOptions(options: ForkOptions, parentTools: string[] | undefined): ForkMode {
  if (typeof options !== 'object' || options === null) throw new AgentLoopError('INVALID_FORK', `fork options must be an object, got ${describeValue(options)}`)
  const { mode, instruction, description } = options
  if (!MODES.includes(mode)) {
    throw new AgentLoopError('INVALID_FORK', `unknown fork mode ${describeValue(mode)}; modes: "fork" (the parent's prefix, the default of the agent tool), `
      + '"fresh" (its own persona and tools: a cold prefix), "side" (an answer kept out of the parent\'s history)')
  }
  if (typeof instruction !== 'string' || !/\S/.test(instruction)) throw new AgentLoopError('INVALID_FORK', `a fork's instruction must be text, got ${describeValue(instruction)}`)
  if (typeof description !== 'string' || !/\S/.test(description)) throw new AgentLoopError('INVALID_FORK', `a fork's description must be text (a few words), got ${describeValue(description)}`)
  if (mode !== 'fresh' && (options.persona !== undefined || options.tools !== undefined)) {
    throw new AgentLoopError('INVALID_FORK', `persona and tools are for mode "fresh"; a "${mode}" child has its parent's, byte for byte`)
  }
  const { tools } = options
  if (tools === undefined) return mode
  if (!Array.isArray(tools) || tools.some((name) => typeof name !== 'string')) {
    throw new AgentLoopError('INVALID_FORK', `a fresh child's tools must be a list of tool names, got ${describeValue(tools)}`)
  }
  const unknown = parentTools ? tools.filter((name) => !parentTools.includes(name)) : []
  if (unknown.length) {
    throw new AgentLoopError('INVALID_FORK', `a fresh child's tools name ${listNames(unknown)}, which the parent does not have; its tools: ${listNames(parentTools!)}`)
  }
  return mode
}

/**
 * A fork's first request is the parent's request as it stands plus the instruction: when that passes the
 * model's context window, the child would only compact away the prefix it was forked to share, so it is refused.
 */
function checkWindow(home: Context, parent: ForkParent, copy: Session, instruction: string): void {
  const window = home.llm.contextWindow(parent.model)
  const header = copy.requestHeader()?.data.header
  if (window === undefined || !header) return
  const held = estimateFill(copy, { system: header.system, tools: header.tools, messages: copy.messages() })
  const asked = estimateTokens(JSON.stringify(instruction).length)
  if (held + asked <= window) return
  throw new AgentLoopError('CONTEXT_FULL', `the fork's first request needs about ${held + asked} tokens, more than the ${window}-token context window of `
    + `${quote(parent.model)}: the parent's request holds about ${held}, leaving ${Math.max(0, window - held)}, and the instruction needs about ${asked}; `
    + 'shorten the instruction, compact the parent first, or start a "fresh" child')
}

/** The next free child id of `parent`: `<parent>~<n>`, n counting the children its log and the store know. */
async function newChildSession(home: Context, parent: Session): Promise<Session> {
  let n = parent.events().filter((event) => event.type === 'fork/child').length
  const taken = new Set(await home.sessions.list())
  while (taken.has(`${parent.id}~${++n}`));
  return home.sessions.create(`${parent.id}~${n}`)
}

/** A `fresh` child's own prompt: its persona shadows the deployment's, and only the named tools are offered. */
function freshPrompt(ctx: Context, { persona, tools }: ForkOptions): void {
  if (persona !== undefined) ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: persona })
  if (tools) ctx.on('system-prompt/assemble', async (_assembly, _context, next) => {
    const result = await next()
    return { ...result, tools: result.tools.filter((tool) => tools.includes(tool.name)) }
  })
}
