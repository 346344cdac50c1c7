import { MAX_TIMER_MS, messageOf, listNames, describeValue, rawService, type ConfigInput } from 'dsh-core'
import { Context, Service } from 'cordis'
import Schema from 'schemastery'
import { ValidatorPool } from './arguments.ts'
import { checkTimeout, prepareTool } from './definition.ts'
import { ToolsError } from './errors.ts'
import { Origins, type ToolOrigin } from './origin.ts'
import { PluginOwnership } from './ownership.ts'
import { ToolScopes } from './scopes.ts'
import { runTool } from './run.ts'
import { ToolSources, type ToolSourceStatus } from './sources.ts'
import type { ExecuteOptions, ToolBatchDisposer, ToolChange, ExecutableTool, ToolEntry, ToolRegistration, ToolResult, ToolScope } from './types.ts'
import type { ToolKind } from './kinds.ts'

declare module 'cordis' {
  interface Context {
    tools: ToolRuntime
  }
  interface Events {
    /** Emitted (sync) when a tool is registered or unregistered, or a deferred tool is revealed or hidden again. */
    'tools/change'(change: ToolChange): void
    /** Emitted (sync) when a tool source reports that it failed to start, went away or is back (`tools.reportSource`). */
    'tools/source'(status: ToolSourceStatus): void
  }
}

export interface ToolRuntimeConfig {
  timeoutMs: number
}

/** The tool registry (a membership store, not the order authority) and the runner of tool calls. */
export class ToolRuntime extends Service {
  static inject = ['systemPrompt']
  static Config: Schema<ConfigInput<ToolRuntimeConfig>, ToolRuntimeConfig> = Schema.object({
    timeoutMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(30_000)
      .description('How long a tool call may run before it fails as timed out (ms); a tool may set its own.'),
  })

  private readonly scopes: ToolScopes
  private get registry() { return this.scopes.global }
  private readonly validators = new ValidatorPool()
  private readonly ownership = new PluginOwnership()
  private readonly sources = new ToolSources()
  private readonly origins = new Origins()

  /** Resolved once from the service's own context; property reads through a context build proxies. */
  private readonly emit: Context['emit']

  constructor(ctx: Context, public readonly config: ToolRuntimeConfig) {
    // Checked before super() so a bad config never leaves a half-built service registered as ctx.tools.
    checkTimeout(config?.timeoutMs, 'tools config timeoutMs', 'INVALID_CONFIG')
    super(ctx, 'tools')
    this.emit = ctx.emit
    // An agent's own tools are a tool provider of that agent's prompt scope: they join the global tools only
    // in assemblies of that scope, and the provider leaves with the agent's last tool.
    this.scopes = new ToolScopes((agentId, registry) => ctx.systemPrompt.scope(agentId).tools(() => registry.provide()))
    const global = this.scopes.global
    ctx.systemPrompt.tools(() => global.provide())
  }

  /**
   * Adds a tool; returns its disposer. It is removed with the registering plugin. With `{ agentId }` the
   * tool is that agent's alone: only its assemblies show it and only its calls reach it. `{ server }` names
   * the remote source (an MCP server) in the tool's `origin`, beside the registering plugin and its entry.
   */
  register<Args = any>(definition: ExecutableTool<Args>, scope: ToolRegistration = {}): () => Promise<void> {
    // The caller's context decides which plugin owns the tool; everything else is read from the raw service.
    const self = rawService(this)
    const agentId = scope?.agentId
    if (agentId !== undefined && (typeof agentId !== 'string' || agentId === '')) {
      throw new ToolsError('INVALID_TOOL', `tools.register() takes agentId as a non-empty string or omitted, got ${describeValue(agentId)}`)
    }
    const server = checkServer(scope?.server, 'tools.register()')
    const entry = prepareTool(definition, self.validators)
    const { name } = entry
    const holder = self.scopes.holder(name, agentId)
    if (holder) {
      const wanted = agentId === undefined ? 'for every agent' : `for agent ${describeValue(agentId)}`
      throw new ToolsError('DUPLICATE_TOOL', `tool ${describeValue(name)} is already registered${holder === wanted ? '' : ` ${holder}; it cannot also be registered ${wanted}`}`)
    }
    if (agentId !== undefined && entry.deferred) {
      throw new ToolsError('INVALID_TOOL', `tool ${describeValue(name)} is registered for agent ${describeValue(agentId)} and cannot be deferred; only tools for every agent can`)
    }
    const registry = self.scopes.registryFor(agentId)
    const where = agentId === undefined ? {} : { agentId }
    return self.ownership.own(callerOf(this), (fiber) => {
      entry.origin = self.origins.of(fiber, server)
      registry.add(entry)
      self.changed('register', name, where)
    }, () => {
      if (!registry.remove(entry)) return
      self.scopes.release(agentId)
      self.changed('unregister', name, where)
    })
  }

  /**
   * Adds many tools at once (an MCP server's listing); returns one disposer for all of them. All or none:
   * every definition is checked, and names against each other and every scope, before any is added. Each
   * tool still emits its own `tools/change`. One call through a Cordis context instead of one per tool,
   * which is most of what registering thousands of tools one by one costs. The returned disposer removes
   * them all; its `each[i]` removes `definitions[i]` alone (a re-listed MCP tool). `{ server }` is recorded
   * in every tool's `origin`, as with `register()`; with `{ agentId }` the tools are that agent's alone.
   */
  registerMany(definitions: readonly ExecutableTool[], options: ToolRegistration = {}): ToolBatchDisposer {
    const self = rawService(this)
    if (!Array.isArray(definitions)) {
      throw new ToolsError('INVALID_TOOL', `tools.registerMany() needs a list of tool definitions, got ${describeValue(definitions)}`)
    }
    const server = checkServer(options?.server, 'tools.registerMany()')
    const agentId = options?.agentId
    if (agentId !== undefined && (typeof agentId !== 'string' || agentId === '')) {
      throw new ToolsError('INVALID_TOOL', `tools.registerMany() takes agentId as a non-empty string or omitted, got ${describeValue(agentId)}`)
    }
    const entries = definitions.map((definition) => prepareTool(definition, self.validators))
    const wanted = agentId === undefined ? 'for every agent' : `for agent ${describeValue(agentId)}`
    const names = new Set<string>()
    for (const { name, deferred } of entries) {
      const holder = self.scopes.holder(name, agentId)
      if (holder || names.has(name)) {
        const where = holder && holder !== wanted ? ` ${holder}; it cannot also be registered ${wanted}` : ''
        throw new ToolsError('DUPLICATE_TOOL', `tool ${describeValue(name)} is already registered${where}`)
      }
      if (agentId !== undefined && deferred) {
        throw new ToolsError('INVALID_TOOL', `tool ${describeValue(name)} is registered for agent ${describeValue(agentId)} and cannot be deferred; only tools for every agent can`)
      }
      names.add(name)
    }
    const registry = self.scopes.registryFor(agentId)
    const where = agentId === undefined ? {} : { agentId }
    const owner = callerOf(this)
    let origin: ToolOrigin | undefined
    const disposers = entries.map((entry) => self.ownership.own(owner, (fiber) => {
      entry.origin = origin ??= self.origins.of(fiber, server)
      registry.add(entry)
      self.changed('register', entry.name, where)
    }, () => {
      if (!registry.remove(entry)) return
      self.scopes.release(agentId)
      self.changed('unregister', entry.name, where)
    }))
    const all = async () => {
      for (const dispose of [...disposers].reverse()) await dispose()
    }
    return Object.assign(all, { each: Object.freeze(disposers) })
  }

  /**
   * Where the registered tool `name` comes from: `{ plugin, entry, server? }`, recorded by `register()` /
   * `registerMany()`; undefined for an unknown name. With `{ agentId }` that agent's own tools count too.
   */
  origin(name: string, scope: ToolScope = {}): ToolOrigin | undefined {
    return rawService(this).scopes.get(name, scope?.agentId)?.origin
  }

  /** Shows a deferred tool to the model; true when that changed what the model sees. */
  reveal(name: string): boolean {
    return this.setRevealed(name, true)
  }

  /** Hides a revealed deferred tool again; true when that changed what the model sees. */
  unreveal(name: string): boolean {
    return this.setRevealed(name, false)
  }

  /** Registered names, code-unit order: those for every agent, plus the agent's own with `{ agentId }`. */
  list(scope: ToolScope = {}): string[] {
    return this.scopes.names(scope.agentId)
  }

  has(name: string, scope: ToolScope = {}): boolean {
    return this.scopes.get(name, scope.agentId) !== undefined
  }

  /** The checked, frozen definition of a registered tool. */
  get(name: string, scope: ToolScope = {}): Readonly<ExecutableTool> | undefined {
    return this.scopes.get(name, scope.agentId)?.definition
  }

  /**
   * The ACP `ToolKind` of a registered tool: its own `kind`, else the one its annotations imply, else
   * `other` (an unknown name too). Front doors read it without knowing where the tool came from.
   */
  kind(name: string, scope: ToolScope = {}): ToolKind {
    return this.get(name, scope)?.kind ?? 'other'
  }

  /** Names the model currently sees, code-unit order. */
  visibleNames(scope: ToolScope = {}): string[] {
    return this.scopes.names(scope.agentId, true)
  }

  /** Names registered with `shouldDefer` and without `alwaysLoad`, code-unit order (for `GenerateOptions.deferredTools`). */
  deferredNames(): readonly string[] {
    return rawService(this).registry.deferredNames()
  }

  /** Validates the arguments and runs the tool. Never throws: every failure is a result with `isError`. */
  async execute(name: string, args: unknown, options: ExecuteOptions = {}): Promise<ToolResult> {
    const self = rawService(this)
    try {
      const agentId = options?.agentId
      const entry = typeof name === 'string' ? self.scopes.get(name, agentId) : undefined
      if (!entry) {
        const down = typeof name === 'string' ? self.sources.owning(name, agentId) : undefined
        const why = down ? `: its source is down (${down.message}); its tools come back when it reconnects` : ''
        return { output: `unknown tool ${describeValue(name)}${why}; available tools: ${listNames(self.list({ agentId }))}`, isError: true }
      }
      let problems: string | undefined
      try {
        problems = entry.check(args)
      } catch (error) {
        return { output: `tool ${describeValue(name)} cannot be called: its parameters are not a valid JSON Schema: ${messageOf(error)}`, isError: true }
      }
      if (problems !== undefined) {
        return { output: `invalid arguments for tool ${describeValue(name)}: ${problems}`, isError: true }
      }
      return await runTool(name, entry.definition.execute, args, entry.timeoutMs ?? self.config.timeoutMs, options?.signal)
    } catch (error) {
      return { output: `tool ${describeValue(name)} failed: ${messageOf(error)}`, isError: true }
    }
  }

  /**
   * A tool source says it failed to start, went away, or is back: remembered (a call to a missing tool
   * with its prefix then names it as down) and emitted as `tools/source` for front doors to show.
   */
  reportSource(status: ToolSourceStatus): void {
    const self = rawService(this)
    const events = ['failed', 'exited', 'reconnected']
    if (typeof status?.source !== 'string' || status.source === '' || typeof status.prefix !== 'string'
      || !events.includes(status.event) || typeof status.message !== 'string') {
      throw new ToolsError('INVALID_TOOL', `tools.reportSource() takes { source, prefix, event: ${events.join(' | ')}, message }, got ${describeValue(status)}`)
    }
    const frozen = Object.freeze({ ...status })
    self.sources.record(frozen)
    self.emit('tools/source', frozen)
  }

  /** A source that is gone for good (its plugin or session ended): no longer reported as down. */
  forgetSource(source: string, scope: ToolScope = {}): void {
    rawService(this).sources.forget(source, scope.agentId)
  }

  /** The sources that are down now, for every agent plus the agent's own with `{ agentId }`; oldest first. */
  downSources(scope: ToolScope = {}): ToolSourceStatus[] {
    return rawService(this).sources.list(scope.agentId)
  }

  private setRevealed(name: string, revealed: boolean): boolean {
    const entry = this.require(name, revealed ? 'reveal' : 'unreveal')
    if (!this.registry.setRevealed(entry, revealed)) return false
    this.changed(revealed ? 'reveal' : 'unreveal', name)
    return true
  }

  private require(name: string, action: string): ToolEntry {
    const entry = typeof name === 'string' ? this.registry.get(name) : undefined
    if (!entry) throw new ToolsError('UNKNOWN_TOOL', `cannot ${action} unknown tool ${describeValue(name)}; known tools: ${listNames(this.list())}`)
    return entry
  }

  private changed(action: ToolChange['action'], name: string, where: { agentId?: string } = {}) {
    this.emit('tools/change', { action, name, ...where })
  }
}

export default ToolRuntime

function checkServer(server: unknown, call: string): string | undefined {
  if (server === undefined || (typeof server === 'string' && server !== '')) return server
  throw new ToolsError('INVALID_TOOL', `${call} takes server as a non-empty string or omitted, got ${describeValue(server)}`)
}

/**
 * The calling plugin's context: a Cordis service proxy answers its tracked `ctx` property with the caller's
 * context directly (no shadow is built). Not cached by proxy: a plugin reading `ctx.tools` per call gets a new
 * proxy each time, so a cache only added a weak entry per registration.
 */
function callerOf(service: ToolRuntime): Context {
  return (service as unknown as { ctx: Context }).ctx
}
