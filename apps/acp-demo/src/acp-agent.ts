import { isAbsolute } from 'node:path'
import { PROTOCOL_VERSION, agent, methods } from '@agentclientprotocol/sdk'
import type { AgentConnection, Implementation, InitializeResponse, McpServer, SessionUpdate, Stream } from '@agentclientprotocol/sdk'
import type { Logger } from 'cordis'
import { messageOf } from 'dsh-core'
import type { Harness } from 'dsh-harness'
import type { ToolKind } from './harness-types.ts'
import type { Notices } from './updates.ts'
import { AcpSessions } from './acp-sessions.ts'
import { AVAILABLE_COMMANDS, commandOf, runCompactCommand, runSideCommand } from './commands.ts'
import { AcpDemoError, toRequestError } from './errors.ts'
import { clientPresentsNotices } from './client-notices.ts'
import { gateMessages } from './message-gate.ts'
import { promptText } from './prompt-text.ts'
import { replayUpdates } from './replay.ts'
import type { RequestPermission } from './permission-request.ts'
import { runPromptTurn } from './prompt-turn.ts'
import { SessionMcpServers, sessionServerSpecs, type SessionMcpOptions } from './session-mcp.ts'
import { SourceNotices, sourceNoticeUpdate, type SourceFeed } from './source-notices.ts'
import { CREATED_EVENT, DEFAULT_PAGE_SIZE, listPage } from './session-list.ts'
import { RELEASED_NOTIFICATION, RELEASE_METHOD, fleetListPage, releaseHandler, requestRelease } from './fleet.ts'

export interface AcpAgentOptions {
  /**
   * The harness the sessions run on (`ctx.harness`): agents, stored sessions (`session/load`, `session/resume`,
   * `session/list`), readiness (prompts wait for it, `initialize` does not), tool-source outages, cold-cache
   * notices and tool kinds.
   */
  harness: Harness
  info: Implementation
  logger: Logger
  /** Sessions per `session/list` page. */
  listPageSize?: number
  /** How the MCP servers a client passes in `session/new` are run for that session. */
  mcp: Omit<SessionMcpOptions, 'logger'>
}

/** One served ACP connection. `closed` resolves once the connection is gone and its agents are released. */
export interface AcpServing {
  connection: AgentConnection
  closed: Promise<void>
}

/**
 * What `initialize` answers: the SDK's protocol version, the agent's identity, baseline capabilities,
 * `loadSession` and `session/resume` (with a session store), `session/list` (with summaries), `session/close`
 * always, and the MCP transports `session/new` connects (stdio always, Streamable HTTP; not the deprecated SSE).
 */
export function initializeResponse(info: Implementation, loadSession = false, listSessions = false): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentInfo: info,
    agentCapabilities: {
      loadSession,
      sessionCapabilities: { close: {}, ...loadSession && { resume: {} }, ...listSessions && { list: {} } },
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      mcpCapabilities: { http: true, sse: false },
    },
    authMethods: [],
  }
}

// ACP asks for an absolute path; the SDK checks only that it is a string
function checkCwd(method: string, cwd: string): void {
  if (isAbsolute(cwd)) return
  throw new AcpDemoError('INVALID_PARAMS', `${method}: cwd ${JSON.stringify(cwd)} is not an absolute path; ACP asks for the client's `
    + 'working directory as one, e.g. "/home/me/project"', { cwd })
}

// the SDK turns any other thrown value into "Internal error"; ours keep their message
function guard<C, R>(handler: (context: C) => Promise<R>): (context: C) => Promise<R> {
  return async (context) => {
    try {
      return await handler(context)
    } catch (error) {
      throw toRequestError(error)
    }
  }
}

/**
 * Serves the Agent Client Protocol on `stream` with DSH agents: one agent and session per `session/new`,
 * one turn per `session/prompt`, live output as `session/update` notifications, `session/cancel` to stop.
 */
export function serveAcp(stream: Stream, options: AcpAgentOptions): AcpServing {
  const { harness, info, logger } = options
  const servers = new SessionMcpServers({ ...options.mcp, logger })
  const sessions = new AcpSessions(harness, servers)
  let notices: Notices | undefined
  /** The `clientCapabilities` of the latest `initialize`, as the client sent them. */
  let sentCapabilities: unknown
  const kindsOf = (agentId: string) => (name: string): ToolKind => harness.toolKind(name, agentId)
  /** Per session: the `available_commands_update` sent after `session/new`, once it is out. */
  const advertised = new Map<string, Promise<void>>()
  // assigned once connected; statuses only flow to sessions, which exist only after that
  let connection: AgentConnection | undefined
  // tool-source outages (MCP servers failing, exiting, coming back), shown to each session they concern
  const feed: SourceFeed = { down: (agentId) => harness.downSources(agentId), watch: (listener) => harness.onSourceStatus(listener) }
  const sourceNotices = new SourceNotices(feed, (sessionId, status): Promise<void> =>
    connection!.client.notify(methods.client.session.update, { sessionId, update: sourceNoticeUpdate(status, notices !== undefined) })
      .catch((error) => logger.warn('session %s: cannot send a tool-source notice: %s', sessionId, messageOf(error))))
  /** After the session's first updates are out: the outages that are on now, then every status that concerns it. */
  const announceSources = (sessionId: string, after: Promise<unknown> = Promise.resolve()) => {
    void after.then(() => sourceNotices.open(sessionId))
      .catch((error) => logger.warn('session %s: cannot announce tool-source outages: %s', sessionId, messageOf(error)))
  }
  /** `session/load` and `session/resume`: the stored session as this connection's agent, its MCP servers started. */
  const reopen = async (method: string, params: { sessionId: string; mcpServers?: McpServer[] | null }) => {
    const specs = sessionServerSpecs(params.mcpServers ?? [], options.mcp)
    const target = await sessions.load(params.sessionId, await harness.storedSessionIds())
    servers.open(target.id, specs)
    return target
  }
  const closeSession = async (sessionId: string) => {
    await sessions.close(sessionId)
    sourceNotices.close(sessionId)
    advertised.delete(sessionId)
    logger.debug('session %s: closed', sessionId)
  }
  const app = agent({ name: info.name })
    .onRequest(methods.agent.initialize, guard(async ({ params }) => {
      // the capabilities as the client sent them: the SDK's parsing drops a `notices: true`
      notices = clientPresentsNotices(sentCapabilities ?? params.clientCapabilities) ? { locale: harness.noticeLocale(), harness } : undefined
      return initializeResponse(info, true, true)
    }))
    .onRequest(methods.agent.session.new, guard(async ({ params, client }) => {
      // checked before the agent exists, so a refused entry leaves no session behind
      checkCwd('session/new', params.cwd)
      const specs = sessionServerSpecs(params.mcpServers ?? [], options.mcp)
      const created = await sessions.open(params.cwd)
      servers.open(created.id, specs)
      logger.debug('session %s: created (client cwd %s, model cwd %s)', created.id, params.cwd, harness.cwd)
      // After the response, so the client knows the session the update names; a prompt waits for it, so it
      // always comes before the session's first turn.
      advertised.set(created.id, new Promise<void>((resolve) => setTimeout(resolve)).then(() => client.notify(methods.client.session.update, {
        sessionId: created.id, update: { sessionUpdate: 'available_commands_update', availableCommands: AVAILABLE_COMMANDS },
      })).catch((error) => logger.warn('session %s: cannot send available_commands_update: %s', created.id, messageOf(error))))
      announceSources(created.id, advertised.get(created.id))
      return { sessionId: created.id }
    }))
    .onRequest(methods.agent.session.load, guard(async ({ params, client }) => {
      const target = await reopen('session/load', params)
      // the whole conversation goes out before the response, as ACP asks; the next header says `resume`
      for (const update of replayUpdates(target.session.events(), kindsOf(target.id))) {
        await client.notify(methods.client.session.update, { sessionId: target.id, update })
      }
      logger.debug('session %s: loaded with %d turn(s)', target.id, target.session.events().filter((event) => event.type === 'turn/start').length)
      announceSources(target.id, new Promise((resolve) => setTimeout(resolve)))
      return {}
    }))
    .onRequest(methods.agent.session.resume, guard(async ({ params }) => {
      // the client keeps its own transcript: nothing is replayed, the next prompt goes on with the log
      const target = await reopen('session/resume', params)
      logger.debug('session %s: resumed', target.id)
      announceSources(target.id, new Promise((resolve) => setTimeout(resolve)))
      return {}
    }))
    .onRequest(methods.agent.session.list, guard(async ({ params }) => {
      const pageSize = options.listPageSize ?? DEFAULT_PAGE_SIZE
      // a store shared by a fleet lists every session, with its holder, one indexed page at a time
      if (harness.fleet) return fleetListPage(harness.fleet, params, harness.cwd, pageSize)
      return listPage(await harness.sessionSummaries([CREATED_EVENT]), params, harness.cwd, pageSize)
    }))
    .onRequest(methods.agent.session.close, guard(async ({ params }) => {
      await closeSession(params.sessionId)
      return {}
    }))
    .onRequest(RELEASE_METHOD, (raw: unknown) => raw, guard(async ({ params }) => requestRelease(harness.fleet, params)))
    .onRequest(methods.agent.session.prompt, guard(async ({ params, signal, client }) => {
      const target = sessions.get(params.sessionId)
      const text = promptText(params.prompt)
      await advertised.get(target.id)
      // the first turn waits until every tool source has started, the session's own MCP servers included
      // (each bounded by its startup timeout)
      const settled = Promise.all([harness.ready(), servers.started(target.id)])
      if (await sessions.untilReady(target.id, settled) === 'cancelled') return { stopReason: 'cancelled' as const }
      const send = (update: SessionUpdate) => client.notify(methods.client.session.update, { sessionId: target.id, update })
      const requestPermission: RequestPermission = (request, sendOptions) => client.request(methods.client.session.requestPermission, request, sendOptions)
      const command = commandOf(text)
      const run = () => command?.name === 'compact' ? runCompactCommand(target, send)
        : command?.name === 'side' ? sessions.cancellable(target.id, signal, (cancel) => runSideCommand(target, command.question, { harness, send, signal: cancel, kindOf: kindsOf(target.id) }))
        : runPromptTurn(target, text, { signal, logger, notices, send, requestPermission, kindOf: kindsOf(target.id), harness })
      return sessions.track(target.id, sourceNotices.during(target.id, run))
    }))
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      const target = sessions.find(params.sessionId)
      if (target) sessions.cancel(target.id)
      else logger.warn('session/cancel: unknown session "%s"', params.sessionId)
    })

  const connected = app.connect(gateMessages(stream, { onInitialize: (params) => { sentCapabilities = params?.clientCapabilities } }))
  connection = connected
  // a session of this connection idle past its model's cache TTL: the same notice the REPL prints
  const stopCold = harness.onColdCache((agent, info) => {
    if (!notices || sessions.find(agent.id) !== agent) return
    const update = { sessionUpdate: 'notice', severity: 'info', title: harness.coldCacheNotice(info, notices.locale) } as SessionUpdate
    connected.client.notify(methods.client.session.update, { sessionId: agent.id, update })
      .catch((error) => logger.warn('session %s: cannot send the cold-cache notice: %s', agent.id, messageOf(error)))
  })
  // another process's client wants a session of this connection: released at a turn boundary, never mid-turn
  const stopReleases = harness.fleet?.onReleaseRequest(releaseHandler({
    has: (sessionId) => sessions.find(sessionId) !== undefined,
    idle: (sessionId) => sessions.idle(sessionId),
    close: closeSession,
    tell: (sessionId, to) => connected.client.notify(RELEASED_NOTIFICATION, { sessionId, to }),
  }))
  const closed = connected.closed
    .finally(() => { stopCold(); stopReleases?.() })
    .catch((error) => logger.warn('connection closed with an error: %s', messageOf(error)))
    .then(() => sourceNotices.dispose())
    .then(() => sessions.closeAll())
    .catch((error) => logger.error(error))
  return { connection: connected, closed }
}
