import { messageOf, listNames, describeValue, rawService } from 'dsh-core'
import { Context, Service } from 'cordis'
import Schema from 'schemastery'
import { createAjv } from './arguments.ts'
import { MAX_TIMEOUT_MS, checkTimeout, prepareTool } from './definition.ts'
import { ToolError } from './errors.ts'
import { ToolRegistry } from './registry.ts'
import { runTool } from './run.ts'
import type { ExecuteOptions, ToolChange, ExecutableTool, ToolEntry, ToolResult } from './types.ts'

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

  private readonly registry = new ToolRegistry()
  private readonly ajv = createAjv()

  /** Resolved once from the service's own context; property reads through a context build proxies. */
  private readonly emit: Context['emit']

  constructor(ctx: Context, public readonly config: ToolRuntimeConfig) {
    // Checked before super() so a bad config never leaves a half-built service registered as ctx.tools.
    checkTimeout(config?.timeoutMs, 'tools config timeoutMs', 'INVALID_CONFIG')
    super(ctx, 'tools')
    this.emit = ctx.emit
    const registry = this.registry
    ctx.systemPrompt.tools(() => registry.provide())
  }

  /** Adds a tool; returns its disposer. It is removed with the registering plugin. */
  register<Args = any>(definition: ExecutableTool<Args>): () => Promise<void> {
    const entry = prepareTool(definition, this.ajv)
    const { name } = entry
    if (this.registry.has(name)) {
      this.ajv.removeSchema(entry.schema.parameters)
      throw new ToolError('DUPLICATE_TOOL', `tool ${describeValue(name)} is already registered`)
    }
    try {
      return this.ctx.effect(() => {
        this.registry.add(entry)
        this.changed('register', name)
        return () => {
          if (!this.registry.remove(entry)) return
          this.ajv.removeSchema(entry.schema.parameters)
          this.changed('unregister', name)
        }
      }, `tools.register(${name})`)
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

  /** Registered names, code-unit order. */
  list(): string[] {
    return this.registry.names()
  }

  has(name: string): boolean {
    return this.registry.has(name)
  }

  /** The checked, frozen definition of a registered tool. */
  get(name: string): Readonly<ExecutableTool> | undefined {
    return this.registry.get(name)?.definition
  }

  /** Names the model currently sees, code-unit order. */
  visibleNames(): string[] {
    return this.registry.names((entry) => this.registry.isVisible(entry))
  }

  /** Names registered with `shouldDefer` and without `alwaysLoad`, code-unit order (for `GenerateOptions.deferredTools`). */
  deferredNames(): readonly string[] {
    return rawService(this).registry.deferredNames()
  }

  /** Validates the arguments and runs the tool. Never throws: every failure is a result with `isError`. */
  async execute(name: string, args: unknown, options: ExecuteOptions = {}): Promise<ToolResult> {
    const self = rawService(this)
    try {
      const entry = typeof name === 'string' ? self.registry.get(name) : undefined
      if (!entry) {
        return { output: `unknown tool ${describeValue(name)}; available tools: ${listNames(self.list())}`, isError: true }
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

  private changed(action: ToolChange['action'], name: string) {
    this.emit('tools/change', { action, name })
  }
}

export default ToolRuntime
