import { readFileSync } from 'node:fs'
import { Context, Service } from 'cordis'
import type { Implementation, Stream } from '@agentclientprotocol/sdk'
import type { Harness } from 'dsh-harness'
import { serveAcp, type AcpServing } from './acp-agent.ts'
import { type OversizedLine, refusal } from './line-limit.ts'
import type { AcpDemoConfig } from './config.ts'

declare module 'cordis' {
  interface Context {
    acpDemo: AcpDemo
  }
}

/** The package version: `agentInfo.version` and `--version`. */
export const VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version

/** The running app: its parsed config, and `serve()` to speak ACP on a stream with the harness's agents. */
export class AcpDemo extends Service {
  static inject = ['harness']

  private readonly harness: Harness
  private readonly logger: ReturnType<Context['logger']>
  private readonly served = new Set<AcpServing>()

  constructor(ctx: Context, public readonly config: AcpDemoConfig) {
    super(ctx, 'acpDemo')
    this.harness = ctx.harness
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
    // A session's own MCP servers connect for its agent alone, through the harness (`ctx.mcp` underneath).
    const mcp = {
      service: { check: this.harness.checkMcp, connect: this.harness.attachMcp },
      startupTimeoutMs: this.config.mcpStartupTimeoutMs,
      callTimeoutMs: this.config.mcpCallTimeoutMs,
    }
    const serving = serveAcp(stream, {
      harness: this.harness, info: this.info, logger: this.logger, mcp, listPageSize: this.config.sessionListPageSize,
    })
    this.served.add(serving)
    serving.closed.finally(() => this.served.delete(serving))
    return serving
  }
}

export default AcpDemo
