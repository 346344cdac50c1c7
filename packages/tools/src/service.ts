import { messageOf, listNames, describeValue, rawService } from 'dsh-core'
import { Context, Service } from 'cordis'
import Schema from 'schemastery'
import { createAjv } from './arguments.ts'
import { MAX_TIMEOUT_MS, checkTimeout, prepareTool } from './definition.ts'
import { ToolError } from './errors.ts'
import { ToolScopes } from './scopes.ts'
import { runTool } from './run.ts'
import type { ExecuteOptions, ToolChange, ExecutableTool, ToolEntry, ToolResult, ToolScope } from './types.ts'

declare module 'cordis' {
  interface Context {
    tools: ToolRuntime
  }
  interface Events {
    /** Emitted (sync) when a tool is registered or unregistered, or a deferred tool is revealed or hidden again. */
    'tools/change'(change: ToolChange): void
  }
}

export interface ToolRuntimeConfig {
  timeoutMs: number
}

/** The tool registry (a membership store, not the order authority) and the runner of tool calls. */
export class ToolRuntime extends Service {
  static inject = ['systemPrompt']
  static Config: Schema<ToolRuntimeConfig> = Schema.object({
    timeoutMs: Schema.natural().min(1).max(MAX_TIMEOUT_MS).default(30_000)
      .description('How long a tool call may run before it fails as timed out (ms); a tool may set its own.'),
  })

  private readonly scopes = new ToolScopes()
  private get registry() { return this.scopes.global }
  private readonly ajv = createAjv()

  /** Resolved once from the service's own context; property reads through a context build proxies. */
  private readonly emit: Context['emit']

  constructor(ctx: Context, public readonly config: ToolRuntimeConfig) {
    // Checked before super() so a bad config never leaves a half-built service registered as ctx.tools.
    checkTimeout(config?.timeoutMs, 'tools config timeoutMs', 'INVALID_CONFIG')
    super(ctx, 'tools')
    this.emit = ctx.emit
    const scopes = this.scopes
    ctx.systemPrompt.tools((context) => scopes.provide(typeof context.agentId === 'string' ? context.agentId : undefined))
  }

  /**
   * Adds a tool; returns its disposer. It is removed with the registering plugin. With `{ agentId }` the
   * tool is that agent's alone: only its assemblies show it and only its calls reach it.
   */
  register<Args = any>(definition: ExecutableTool<Args>, scope: ToolScope = {}): () => Promise<void> {
    const agentId = scope?.agentId
    if (agentId !== undefined && (typeof agentId !== 'string' || agentId === '')) {
      throw new ToolError('INVALID_TOOL', `tools.register() takes agentId as a non-empty string or omitted, got ${describeValue(agentId)}`)
    }
    const entry = prepareTool(definition, this.ajv)
    const { name } = entry
    const holder = this.scopes.holder(name, agentId)
    const refuse = (code: 'DUPLICATE_TOOL' | 'INVALID_TOOL', message: string) => {
      this.ajv.removeSchema(entry.schema.parameters)
      return new ToolError(code, message)
    }
    if (holder) {
      const wanted = agentId === undefined ? 'for every agent' : `for agent ${describeValue(agentId)}`
      throw refuse('DUPLICATE_TOOL', `tool ${describeValue(name)} is already registered${holder === wanted ? '' : ` ${holder}; it cannot also be registered ${wanted}`}`)
    }
    if (agentId !== undefined && entry.deferred) {
      throw refuse('INVALID_TOOL', `tool ${describeValue(name)} is registered for agent ${describeValue(agentId)} and cannot be deferred; only tools for every agent can`)
    }
    const registry = this.scopes.registryFor(agentId)
    const where = agentId === undefined ? {} : { agentId }
    try {
      return this.ctx.effect(() => {
        registry.add(entry)
        this.changed('register', name, where)
        return () => {
          if (!registry.remove(entry)) return
          this.scopes.release(agentId)
          this.ajv.removeSchema(entry.schema.parameters)
          this.changed('unregister', name, where)
        }
      }, agentId === undefined ? `tools.register(${name})` : `tools.register(${name} for agent ${describeValue(agentId)})`)
    } catch (error) {
      this.ajv.removeSchema(entry.schema.parameters)
      throw error
    }
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
        return { output: `unknown tool ${describeValue(name)}; available tools: ${listNames(self.list({ agentId }))}`, isError: true }
      }
      const problems = entry.check(args)
      if (problems !== undefined) {
        return { output: `invalid arguments for tool ${describeValue(name)}: ${problems}`, isError: true }
      }
      return await runTool(name, entry.definition.execute, args, entry.timeoutMs ?? self.config.timeoutMs, options?.signal)
    } catch (error) {
      return { output: `tool ${describeValue(name)} failed: ${messageOf(error)}`, isError: true }
    }
  }

  private setRevealed(name: string, revealed: boolean): boolean {
    const entry = this.require(name, revealed ? 'reveal' : 'unreveal')
    if (!this.registry.setRevealed(entry, revealed)) return false
    this.changed(revealed ? 'reveal' : 'unreveal', name)
    return true
  }

  private require(name: string, action: string): ToolEntry {
    const entry = typeof name === 'string' ? this.registry.get(name) : undefined
    if (!entry) throw new ToolError('UNKNOWN_TOOL', `cannot ${action} unknown tool ${describeValue(name)}; known tools: ${listNames(this.list())}`)
    return entry
  }

  private changed(action: ToolChange['action'], name: string, where: { agentId?: string } = {}) {
    this.emit('tools/change', { action, name, ...where })
  }
}

export default ToolRuntime
