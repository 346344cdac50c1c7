import { readFileSync } from 'node:fs'
import { Context, Service } from 'cordis'
import { isGone } from 'dsh-core'
import type { Implementation, Stream } from '@agentclientprotocol/sdk'
import type { AgentLoop } from 'dsh-agent-loop'
import { summarizeSessions } from 'dsh-session'
import { CREATED_EVENT } from './session-list.ts'
import type {} from 'dsh-app-boot'
import type { ToolSourceStatus } from 'dsh-tools'
import type {} from 'dsh-tools-mcp'
import { serveAcp, type AcpAgentOptions, type AcpServing } from './acp-agent.ts'
import { type OversizedLine, refusal } from './line-limit.ts'
import type { AcpDemoConfig } from './config.ts'

declare module 'cordis' {
  interface Context {
    acpDemo: AcpDemo
  }
}

/** The package version: `agentInfo.version` and `--version`. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/** The running app: its parsed config, and `serve()` to speak ACP on a stream with the spine's agents. */
export class AcpDemo extends Service {
  static inject = ['agentLoop', 'tools', 'mcp']

  private readonly loop: AgentLoop
  private readonly logger: ReturnType<Context['logger']>
  private readonly served = new Set<AcpServing>()

  constructor(ctx: Context, public readonly config: AcpDemoConfig) {
    super(ctx, 'acpDemo')
    this.loop = ctx.agentLoop
    this.logger = ctx.logger('acp')
    ctx.effect(() => () => {
      for (const serving of this.served) serving.connection.close()
      return Promise.all([...this.served].map((serving) => serving.closed))
    }, 'acpDemo: close connections')
  }

  /** The identity `initialize` reports. */
  get info(): Implementation {
    return { name: this.config.agentName, title: this.config.agentTitle, version: VERSION }
  }

  /**
   * A message over the line limit (see `limitLines`): logs one warning and returns the JSON-RPC error line
   * to answer it with, or undefined when it has no readable id.
   */
  refuseOversized(line: OversizedLine, limit: number): string | undefined {
    const answer = refusal(line, limit)
    this.logger.warn(answer.log)
    return answer.response
  }

  /**
   * Serves one ACP connection on `stream` (e.g. `ndJsonStream` over stdio) until either side closes it.
   * `initialize` and `session/new` answer at once; a `session/prompt` waits until the app is ready.
   */
  serve(stream: Stream): AcpServing {
    // booted by dsh-app-boot, the root context holds the startup barrier; a bare Context is ready at once
    const readiness = this.ctx.get('readiness', false)
    const ready = () => readiness?.ready ?? Promise.resolve()
    const { ctx } = this
    // ctx.mcp read from this plugin's context: the sessions' MCP tools are this plugin's, as before
    const mcp = { service: ctx.mcp, startupTimeoutMs: this.config.mcpStartupTimeoutMs, callTimeoutMs: this.config.mcpCallTimeoutMs }
    // the spine's session store (JSONL or external) lists what `session/load` may reopen
    const store = this.ctx.get('sessions', false)
    const storedSessions = store ? () => store.list() : undefined
    const summaries = store ? () => summarizeSessions(store, [CREATED_EVENT]) : undefined
    const sources = {
      // a session may open while the app is being disposed: then no source is down any more
      down: (agentId: string) => isGone(ctx) ? [] : ctx.tools.downSources({ agentId }),
      watch: (listener: (status: ToolSourceStatus) => void) => ctx.on('tools/source', listener),
    }
    const onColdCache: AcpAgentOptions['onColdCache'] = (listener) => ctx.on('prompt-cache/cold', listener)
    const kindOf = (name: string, agentId: string) => isGone(ctx) ? 'other' as const : ctx.tools.kind(name, { agentId })
    const serving = serveAcp(stream, {
      loop: this.loop, info: this.info, logger: this.logger, ready, mcp, storedSessions, onColdCache, kindOf,
      summaries, listPageSize: this.config.sessionListPageSize, sources, fleet: store?.fleet,
    })
    this.served.add(serving)
    serving.closed.finally(() => this.served.delete(serving))
    return serving
  }
}

export default AcpDemo
