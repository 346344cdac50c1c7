import { rawService, type ToolSchema, quote, type ConfigInput } from 'dsh-core'
import { Context, Service } from 'cordis'
import Schema from 'schemastery'
import { SystemPromptError } from './errors.ts'
import { ToolCollector } from './collect.ts'
import { collectContexts, collectSections, collectVariables } from './assembly.ts'
import { PromptLayers, type AssembleListener, type ProviderEntry } from './layers.ts'
import { Registrar, type SystemPromptChange } from './register.ts'
import { contextScope } from './scoped-context.ts'
import { SCHEMA_KEY_ORDERS, snapshotSchema, type SchemaKeyOrder } from './snapshot.ts'
import { TOOL_ORDER_REST, ToolOrderPolicy } from './tool-order.ts'
import type {
  AssembleContext, ContextDefinition, PromptAssembly, ScopeKey, SectionDefinition, ToolProvider, VariableProvider,
} from './types.ts'

declare module 'cordis' {
  interface Context {
    systemPrompt: SystemPrompt
  }
  interface Events {
    /** Waterfall over the canonical assembly; a listener may edit it or return another one. */
    'system-prompt/assemble'(assembly: PromptAssembly, context: AssembleContext, next: () => Promise<PromptAssembly>): Promise<PromptAssembly>
    /** Emitted (sync) when a registration is added or removed; a listener that throws refuses the addition. */
    'system-prompt/change'(change: SystemPromptChange): void
  }
}

/** What `inspect()` returns: an assembly and why it looks the way it does. */
export interface PromptInspection {
  assembly: PromptAssembly
  /** Tools in canonical order, before `system-prompt/assemble` listeners ran. */
  canonical: ToolSchema[]
  /** Tool name → the plugin that contributed it, in canonical tool order. */
  owners: Map<string, string>
  /** Registered section name → its order (sections added by listeners have none). */
  sectionOrders: Map<string, number>
  toolOrder: readonly string[] | undefined
  schemaKeyOrder: SchemaKeyOrder
}

/** Registrations bound to one scope (a session or an agent); see `SystemPrompt.scope()`. */
export interface ScopedPrompt {
  readonly scope: ScopeKey
  section(definition: SectionDefinition): () => void
  context(definition: ContextDefinition): () => void
  variable(name: string, provide: VariableProvider): () => void
  tools(provide: ToolProvider): () => void
  suppressRuntimeContext(): () => void
  /** A `system-prompt/assemble` listener for this scope's assemblies only; it runs inside the global ones. */
  onAssemble(listener: AssembleListener): () => void
}

export const PERSONA_SECTION = 'deployment:persona'
export const PERSONA_ORDER = 0
/** The runtime context the `runtimeContext` config key registers: after the cached prefix, never in it. */
const DEPLOYMENT_CONTEXT = 'deployment:context'
const DEPLOYMENT_CONTEXT_ORDER = 0
export const IDENTITY_SECTION = 'harness:identity'
export const IDENTITY_ORDER = -100
export const IDENTITY_TEXT = 'You are an assistant running inside DSH, an agent harness. '
  + 'Call a tool when it helps with the request; otherwise answer in plain text.'

export interface SystemPromptConfig {
  persona: string
  /** Default `''`: the runtime context `deployment:context` (e.g. `The working directory is {{cwd}}.`); empty registers none. */
  runtimeContext?: string
  toolOrder?: string[]
  /** Default `canonical`. */
  schemaKeyOrder?: SchemaKeyOrder
  includeHarnessIdentity: boolean
  /** Default `true`: runtime contexts take part in assemblies. */
  includeRuntimeContext?: boolean
}

/** Owns section order, runtime context, prompt variables and the canonical model-facing tool order. */
export class SystemPrompt extends Service {
  static Config: Schema<ConfigInput<SystemPromptConfig>, SystemPromptConfig> = Schema.object({
    persona: Schema.string().default('').description('Deployment persona, the section deployment:persona at order 0; empty renders nothing.'),
    runtimeContext: Schema.string().default('')
      .description('Deployment runtime context, the context deployment:context at order 0 (e.g. "The working directory is {{cwd}}."): sent after the cached prefix, as a message, only when it changes; empty adds none.'),
    toolOrder: Schema.union([Schema.array(Schema.string()), Schema.const(undefined)])
      .description(`Explicit model-facing tool order: tool names and prefix groups ending in "*" (e.g. "mcp__github__*"). Must contain "${TOOL_ORDER_REST}" once; omitted means code-unit lexicographic order.`),
    schemaKeyOrder: Schema.union(SCHEMA_KEY_ORDERS.map((order) => Schema.const(order))).default('canonical')
      .description('Object keys of tool parameter schemas: canonical (code-unit order at every depth, stable bytes) or registered (the provider\'s order).'),
    includeHarnessIdentity: Schema.boolean().default(true).description('Prepend a short fixed identity section at order -100.'),
    includeRuntimeContext: Schema.boolean().default(true).description('Runtime contexts (date, working folder, git state) take part in assemblies; false drops them all.'),
  })

  private readonly layers = new PromptLayers()
  private readonly registrar: Registrar
  private readonly policy: ToolOrderPolicy | undefined
  private readonly collector: ToolCollector
  private readonly keyOrder: SchemaKeyOrder
  private readonly runtimeContext: boolean
  /** The policy's arrangement of the last collection; collections are reused while providers are unchanged. */
  private arranged: { collection: object; tools: readonly ToolSchema[] } | undefined
  // Resolved once from the service's own context: each property read through a Cordis context builds proxies.
  private readonly fire: Context['waterfall']
  private readonly notify: Context['emit']

  constructor(ctx: Context, public readonly config: SystemPromptConfig) {
    super(ctx, 'systemPrompt')
    this.fire = ctx.waterfall
    this.notify = ctx.emit
    this.registrar = new Registrar(this.layers, (change) => this.notify('system-prompt/change', change))
    this.policy = config.toolOrder === undefined ? undefined : new ToolOrderPolicy(config.toolOrder)
    const keyOrder = config.schemaKeyOrder ?? 'canonical'
    if (!SCHEMA_KEY_ORDERS.includes(keyOrder)) {
      throw new SystemPromptError('INVALID_SCHEMA_KEY_ORDER', `schemaKeyOrder must be one of ${SCHEMA_KEY_ORDERS.map(quote).join(', ')}, got ${quote(keyOrder)}`)
    }
    const runtimeContext = config.includeRuntimeContext ?? true
    if (typeof runtimeContext !== 'boolean') {
      throw new SystemPromptError('INVALID_CONFIG', `includeRuntimeContext must be true or false, got ${quote(runtimeContext)}`)
    }
    this.runtimeContext = runtimeContext
    this.keyOrder = keyOrder
    this.collector = new ToolCollector(keyOrder)
    const sections = this.layers.global.sections
    if (config.includeHarnessIdentity !== false) {
      sections.set(IDENTITY_SECTION, { name: IDENTITY_SECTION, order: IDENTITY_ORDER, text: IDENTITY_TEXT, interpolate: false })
    }
    // The slot is there even when empty, so a scope can shadow it by name; an empty section renders nothing.
    sections.set(PERSONA_SECTION, { name: PERSONA_SECTION, order: PERSONA_ORDER, text: config.persona ?? '' })
    // Volatile deployment facts (the working folder) go here instead of the persona, so the prefix stays the same
    // bytes in every folder. Only a non-empty one is registered: an app without it logs exactly what it did before.
    const deploymentContext = config.runtimeContext ?? ''
    if (typeof deploymentContext !== 'string') {
      throw new SystemPromptError('INVALID_CONFIG', `runtimeContext must be a string (text with {{variables}}), got ${quote(deploymentContext)}`)
    }
    if (deploymentContext.trim() !== '') {
      this.layers.global.contexts.set(DEPLOYMENT_CONTEXT, { name: DEPLOYMENT_CONTEXT, order: DEPLOYMENT_CONTEXT_ORDER, text: deploymentContext })
    }
    // `scopedCtx.on('system-prompt/assemble', …)` becomes that scope's onAssemble listener: it then sees only
    // the scope's assemblies, inside the global listeners, and leaves with the scoped context's fiber.
    const registrar = this.registrar
    ctx.on('internal/listener', function (this: Context, name: string | symbol, listener: unknown) {
      if (name !== 'system-prompt/assemble') return
      const scope = contextScope(this)
      if (scope !== undefined) return registrar.listener(this, listener as AssembleListener, scope)
    })
  }

  /** The configured explicit order, or undefined when tools go in code-unit order. */
  get toolOrder(): readonly string[] | undefined {
    return this.policy?.names
  }

  // Called through a context made by `scopedContext()` (e.g. `agent.ctx`), each registration below goes into
  // that context's scope; through any other context it is global.

  /** Adds a section; returns its disposer. It is removed with the registering plugin. */
  section(definition: SectionDefinition): () => void {
    return this.registrar.section(this.ctx, definition, contextScope(this.ctx))
  }

  /** Adds a runtime context; returns its disposer. Its text reaches the model outside the cached prefix. */
  context(definition: ContextDefinition): () => void {
    return this.registrar.context(this.ctx, definition, contextScope(this.ctx))
  }

  /** Adds a prompt variable `{{name}}`; returns its disposer. */
  variable(name: string, provide: VariableProvider): () => void {
    return this.registrar.variable(this.ctx, name, provide, contextScope(this.ctx))
  }

  /** Adds a tool-schema provider; returns its disposer. */
  tools(provide: ToolProvider): () => void {
    return this.registrar.tools(this.ctx, provide, contextScope(this.ctx))
  }

  /** Drops every runtime context from global assemblies (and so from every scope's) while it lives; from a scoped context, that scope's. */
  suppressRuntimeContext(): () => void {
    return this.registrar.suppressor(this.ctx, contextScope(this.ctx))
  }

  /**
   * Registrations for one scope: they take part only in assemblies whose context names that `scope`, where
   * tool providers join the global ones and sections, contexts and variables shadow global ones by name.
   */
  scope(scope: ScopeKey): ScopedPrompt {
    if (typeof scope !== 'string' || scope === '') {
      throw new SystemPromptError('INVALID_SCOPE', `a scope is a non-empty string (a session or agent id), got ${quote(scope)}`)
    }
    const { registrar, ctx } = this
    return {
      scope,
      section: (definition) => registrar.section(ctx, definition, scope),
      context: (definition) => registrar.context(ctx, definition, scope),
      variable: (name, provide) => registrar.variable(ctx, name, provide, scope),
      tools: (provide) => registrar.tools(ctx, provide, scope),
      suppressRuntimeContext: () => registrar.suppressor(ctx, scope),
      onAssemble: (listener) => registrar.listener(ctx, listener, scope),
    }
  }

  /**
   * Collects, canonicalizes and assembles. Tools are snapshotted, checked (reserved name, names shared by
   * two providers, `toolOrder` names nobody knows) and put in canonical order before the
   * `system-prompt/assemble` waterfall runs: the global listeners, then the scope's. A complete section is
   * put back as the only section afterwards, and suppressed runtime context stays empty.
   */
  async assemble(context: AssembleContext = {}): Promise<PromptAssembly> {
    const self = rawService(this)
    const scope = scopeOf(context)
    const canonical = self.canonicalTools(context, scope)
    const { sections, completeSection } = collectSections(self.layers, scope, context)
    const suppressed = self.suppressed(scope)
    const assembly: PromptAssembly = {
      sections,
      contexts: collectContexts(self.layers, scope, context, suppressed),
      tools: [...canonical],
      variables: collectVariables(self.layers, scope, context),
    }
    const listeners = self.layers.peek(scope)?.listeners
    const inner = listeners?.size ? chain([...listeners], assembly, context) : async () => assembly
    const result = (await self.fire('system-prompt/assemble', assembly, context, inner)) ?? assembly
    return self.seal({
      ...result,
      sections: completeSection ? [completeSection] : result.sections,
      contexts: suppressed ? [] : result.contexts ?? [],
    }, canonical)
  }

  /** Which plugin contributed each tool, in canonical tool order; the same collection `assemble()` uses. */
  toolOwners(context: AssembleContext = {}): Map<string, string> {
    const self = rawService(this)
    const scope = scopeOf(context)
    const owners = self.collector.collect(self.providersOf(scope), context).owners()
    return new Map(self.canonicalTools(context, scope).map((tool) => [tool.name, owners.get(tool.name)!]))
  }

  /**
   * One assembly with its reasons, for inspection tools: the canonical list before the waterfall, the
   * final assembly after it, who contributed each tool, and each registered section's order.
   */
  async inspect(context: AssembleContext = {}): Promise<PromptInspection> {
    const self = rawService(this)
    const scope = scopeOf(context)
    const canonical = [...self.canonicalTools(context, scope)]
    const assembly = await self.assemble(context)
    return {
      assembly,
      canonical,
      owners: self.toolOwners(context),
      sectionOrders: new Map([...self.layers.merged(scope, (layer) => layer.sections).values()].map((section) => [section.name, section.order])),
      toolOrder: self.policy?.names,
      schemaKeyOrder: self.keyOrder,
    }
  }

  private suppressed(scope: ScopeKey | undefined): boolean {
    return !this.runtimeContext || this.layers.global.suppressors.size > 0 || (this.layers.peek(scope)?.suppressors.size ?? 0) > 0
  }

  /** The providers taking part, listed before any is asked: one added during an assembly joins the next one. */
  private providersOf(scope: ScopeKey | undefined): ProviderEntry[] {
    const own = this.layers.peek(scope)?.providers
    return own?.size ? [...this.layers.global.providers, ...own] : [...this.layers.global.providers]
  }

  private canonicalTools(context: AssembleContext, scope: ScopeKey | undefined): readonly ToolSchema[] {
    const collection = this.collector.collect(this.providersOf(scope), context)
    if (!this.policy) return collection.tools
    if (this.arranged?.collection === collection) return this.arranged.tools
    this.policy.assertKnown(collection.knows, collection.knownNames, collection.eachKnown)
    const tools = this.policy.arrange(collection.tools)
    this.arranged = { collection, tools }
    return tools
  }

  /** Listener-added schemas are snapshotted too, so an issued assembly never aliases anyone's objects. */
  private seal(assembly: PromptAssembly, canonical: readonly ToolSchema[]): PromptAssembly {
    const { tools, sections, contexts, variables } = assembly
    const untouched = tools.length === canonical.length && tools.every((tool, index) => tool === canonical[index])
    if (untouched) return { sections, contexts, tools, variables }
    const sealed = tools.map((tool) => snapshotSchema(tool, 'a system-prompt/assemble listener', this.keyOrder))
    const seen = new Set<string>()
    for (const tool of sealed) {
      if (tool.name === TOOL_ORDER_REST) {
        throw new SystemPromptError('RESERVED_TOOL_NAME', `a system-prompt/assemble listener added a tool named ${quote(TOOL_ORDER_REST)}, which is reserved`)
      }
      if (seen.has(tool.name)) {
        throw new SystemPromptError('DUPLICATE_TOOL', `the assembly lists tool ${quote(tool.name)} twice after the system-prompt/assemble listeners ran`)
      }
      seen.add(tool.name)
    }
    return { sections, contexts, tools: sealed, variables }
  }
}

function scopeOf(context: AssembleContext): ScopeKey | undefined {
  const { scope } = context
  if (scope === undefined) return undefined
  if (typeof scope !== 'string' || scope === '') {
    throw new SystemPromptError('INVALID_SCOPE', `an assembly's scope is a non-empty string (a session or agent id) or absent, got ${quote(scope)}`)
  }
  return scope
}

/** The scope's listeners as one waterfall, first-registered outermost, ending in the assembly itself. */
function chain(listeners: AssembleListener[], assembly: PromptAssembly, context: AssembleContext): () => Promise<PromptAssembly> {
  const run = async (index: number): Promise<PromptAssembly> => {
    if (index === listeners.length) return assembly
    return (await listeners[index]!(assembly, context, () => run(index + 1))) ?? assembly
  }
  return () => run(0)
}

export default SystemPrompt
