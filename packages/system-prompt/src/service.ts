import { rawService, compareCodeUnits, type ToolSchema, quote } from 'dsh-core'
import { Context, Service } from 'cordis'
import Schema from 'schemastery'
import { SystemPromptError } from './errors.ts'
import { VARIABLE_NAME } from './interpolate.ts'
import { ToolCollector, type Collection, type ProviderEntry } from './collect.ts'
import { SCHEMA_KEY_ORDERS, snapshotSchema, type SchemaKeyOrder } from './snapshot.ts'
import { TOOL_ORDER_REST, ToolOrderPolicy } from './tool-order.ts'
import type { AssembleContext, AssembledSection, PromptAssembly, SectionDefinition, ToolProvider, VariableProvider } from './types.ts'

declare module 'cordis' {
  interface Context {
    systemPrompt: SystemPrompt
  }
  interface Events {
    /** Waterfall over the canonical assembly; a listener may edit it or return another one. */
    'system-prompt/assemble'(assembly: PromptAssembly, context: AssembleContext, next: () => Promise<PromptAssembly>): Promise<PromptAssembly>
    /** Emitted (sync) when a section, variable or tool provider is added or removed. */
    'system-prompt/change'(change: SystemPromptChange): void
  }
}

/** What `inspect()` returns: an assembly and why it looks the way it does. */
export interface PromptInspection {
  assembly: PromptAssembly
  /** Tools in canonical order, before `system-prompt/assemble` listeners ran. */
  canonical: ToolSchema[]
  /** Tool name → the plugin that contributed it. */
  owners: Map<string, string>
  /** Registered section name → its order (sections added by listeners have none). */
  sectionOrders: Map<string, number>
  toolOrder: readonly string[] | undefined
  schemaKeyOrder: SchemaKeyOrder
}

export interface SystemPromptChange {
  kind: 'section' | 'variable' | 'tools'
  action: 'add' | 'remove'
  name: string
}

export const PERSONA_SECTION = 'deployment:persona'
export const PERSONA_ORDER = 0
export const IDENTITY_SECTION = 'harness:identity'
export const IDENTITY_ORDER = -100
export const IDENTITY_TEXT = 'You are an assistant running inside DSH, an agent harness. '
  + 'Call a tool when it helps with the request; otherwise answer in plain text.'

export interface SystemPromptConfig {
  persona: string
  toolOrder?: string[]
  /** Default `canonical`. */
  schemaKeyOrder?: SchemaKeyOrder
  includeHarnessIdentity: boolean
}

/** Owns section order, prompt variables and the canonical model-facing tool order. */
export class SystemPrompt extends Service {
  static Config: Schema<SystemPromptConfig> = Schema.object({
    persona: Schema.string().default('').description('Deployment persona, rendered as the section deployment:persona at order 0; empty drops it.'),
    toolOrder: Schema.union([Schema.array(Schema.string()), Schema.const(undefined)])
      .description(`Explicit model-facing tool order: tool names and prefix groups ending in "*" (e.g. "mcp__github__*"). Must contain "${TOOL_ORDER_REST}" once; omitted means code-unit lexicographic order.`),
    schemaKeyOrder: Schema.union(SCHEMA_KEY_ORDERS.map((order) => Schema.const(order))).default('canonical')
      .description('Object keys of tool parameter schemas: canonical (code-unit order at every depth, stable bytes) or registered (the provider\'s order).'),
    includeHarnessIdentity: Schema.boolean().default(true).description('Prepend a short fixed identity section at order -100.'),
  })

  private readonly sections = new Map<string, SectionDefinition>()
  private readonly variables = new Map<string, VariableProvider>()
  private readonly providers = new Set<ProviderEntry>()
  private readonly policy: ToolOrderPolicy | undefined
  private readonly collector: ToolCollector
  private readonly keyOrder: SchemaKeyOrder
  /** The policy's arrangement of the last collection; collections are reused while providers are unchanged. */
  private arranged: { collection: Collection; tools: readonly ToolSchema[] } | undefined
  // Resolved once from the service's own context: each property read through a Cordis context builds proxies.
  private readonly fire: Context['waterfall']
  private readonly notify: Context['emit']

  constructor(ctx: Context, public readonly config: SystemPromptConfig) {
    super(ctx, 'systemPrompt')
    this.fire = ctx.waterfall
    this.notify = ctx.emit
    this.policy = config.toolOrder === undefined ? undefined : new ToolOrderPolicy(config.toolOrder)
    const keyOrder = config.schemaKeyOrder ?? 'canonical'
    if (!SCHEMA_KEY_ORDERS.includes(keyOrder)) {
      throw new SystemPromptError('INVALID_SCHEMA_KEY_ORDER', `schemaKeyOrder must be one of ${SCHEMA_KEY_ORDERS.map(quote).join(', ')}, got ${quote(keyOrder)}`)
    }
    this.keyOrder = keyOrder
    this.collector = new ToolCollector(keyOrder)
    if (config.includeHarnessIdentity !== false) {
      this.sections.set(IDENTITY_SECTION, { name: IDENTITY_SECTION, order: IDENTITY_ORDER, text: IDENTITY_TEXT, complete: true })
    }
    if (config.persona) {
      this.sections.set(PERSONA_SECTION, { name: PERSONA_SECTION, order: PERSONA_ORDER, text: config.persona })
    }
  }

  /** The configured explicit order, or undefined when tools go in code-unit order. */
  get toolOrder(): readonly string[] | undefined {
    return this.policy?.names
  }

  /** Adds a section; returns its disposer. It is removed with the registering plugin. */
  section(definition: SectionDefinition): () => void {
    const { name, order, text } = definition ?? {}
    if (typeof name !== 'string' || name === '') {
      throw new SystemPromptError('INVALID_SECTION', `section name must be a non-empty string, got ${quote(name)}`)
    }
    if (typeof order !== 'number' || !Number.isFinite(order)) {
      throw new SystemPromptError('INVALID_SECTION', `section ${quote(name)} needs a finite order, got ${quote(order)}`)
    }
    if (typeof text !== 'string' && typeof text !== 'function') {
      throw new SystemPromptError('INVALID_SECTION', `section ${quote(name)} needs text as a string or a function, got ${quote(text)}`)
    }
    if (this.sections.has(name)) {
      throw new SystemPromptError('DUPLICATE_SECTION', `section ${quote(name)} is already registered`)
    }
    const entry = { ...definition }
    return this.ctx.effect(() => {
      this.sections.set(name, entry)
      this.changed('section', 'add', name)
      return () => {
        if (this.sections.get(name) !== entry) return
        this.sections.delete(name)
        this.changed('section', 'remove', name)
      }
    }, `systemPrompt.section(${name})`)
  }

  /** Adds a prompt variable `{{name}}`; returns its disposer. */
  variable(name: string, provide: VariableProvider): () => void {
    if (typeof name !== 'string' || !VARIABLE_NAME.test(name)) {
      throw new SystemPromptError('INVALID_VARIABLE', `prompt variable name ${quote(name)} must match ${VARIABLE_NAME}`)
    }
    if (typeof provide !== 'function') {
      throw new SystemPromptError('INVALID_VARIABLE', `prompt variable ${quote(name)} needs a provider function`)
    }
    if (this.variables.has(name)) {
      throw new SystemPromptError('DUPLICATE_VARIABLE', `prompt variable ${quote(name)} is already registered`)
    }
    return this.ctx.effect(() => {
      this.variables.set(name, provide)
      this.changed('variable', 'add', name)
      return () => {
        if (this.variables.get(name) !== provide) return
        this.variables.delete(name)
        this.changed('variable', 'remove', name)
      }
    }, `systemPrompt.variable(${name})`)
  }

  /** Adds a tool-schema provider; returns its disposer. */
  tools(provide: ToolProvider): () => void {
    if (typeof provide !== 'function') {
      throw new SystemPromptError('INVALID_PROVIDER_RESULT', `systemPrompt.tools() needs a provider function, got ${quote(provide)}`)
    }
    const entry: ProviderEntry = { owner: this.ctx.fiber?.name || 'an anonymous plugin', provide }
    return this.ctx.effect(() => {
      this.providers.add(entry)
      this.changed('tools', 'add', entry.owner)
      return () => {
        if (this.providers.delete(entry)) this.changed('tools', 'remove', entry.owner)
      }
    }, 'systemPrompt.tools()')
  }

  /**
   * Collects, canonicalizes and assembles. Tools are snapshotted, checked (reserved name, names shared by
   * two providers, `toolOrder` names nobody knows) and put in canonical order before the
   * `system-prompt/assemble` waterfall runs.
   */
  async assemble(context: AssembleContext = {}): Promise<PromptAssembly> {
    const self = rawService(this)
    const canonical = self.canonicalTools(context)
    const assembly: PromptAssembly = {
      sections: self.collectSections(context),
      tools: [...canonical],
      variables: self.collectVariables(context),
    }
    const result = await self.fire('system-prompt/assemble', assembly, context, async () => assembly)
    return self.seal(result ?? assembly, canonical)
  }

  /** Which plugin contributed each tool (for inspection tools); the same collection `assemble()` uses. */
  toolOwners(context: AssembleContext = {}): Map<string, string> {
    return this.collector.collect(this.providers, context).owners()
  }

  /**
   * One assembly with its reasons, for inspection tools: the canonical list before the waterfall, the
   * final assembly after it, who contributed each tool, and each registered section's order.
   */
  async inspect(context: AssembleContext = {}): Promise<PromptInspection> {
    const self = rawService(this)
    const canonical = [...self.canonicalTools(context)]
    const assembly = await self.assemble(context)
    return {
      assembly,
      canonical,
      owners: self.collector.collect(self.providers, context).owners(),
      sectionOrders: new Map([...self.sections.values()].map((section) => [section.name, section.order])),
      toolOrder: self.policy?.names,
      schemaKeyOrder: self.keyOrder,
    }
  }

  private canonicalTools(context: AssembleContext): readonly ToolSchema[] {
    const collection = this.collector.collect(this.providers, context)
    if (!this.policy) return collection.tools
    if (this.arranged?.collection === collection) return this.arranged.tools
    this.policy.assertKnown(collection.knows, collection.knownNames, collection.eachKnown)
    const tools = this.policy.arrange(collection.tools)
    this.arranged = { collection, tools }
    return tools
  }

  private collectSections(context: AssembleContext): AssembledSection[] {
    const sorted = [...this.sections.values()].sort((a, b) => a.order - b.order || compareCodeUnits(a.name, b.name))
    const sections: AssembledSection[] = []
    for (const { name, text, complete } of sorted) {
      const value = typeof text === 'function' ? text(context) : text
      if (typeof value !== 'string') {
        throw new SystemPromptError('INVALID_SECTION', `section ${quote(name)} produced ${quote(value)} instead of a string`)
      }
      if (value === '') continue
      sections.push(complete ? { name, text: value, complete: true } : { name, text: value })
    }
    return sections
  }

  private collectVariables(context: AssembleContext): Record<string, string | undefined> {
    const variables: Record<string, string | undefined> = Object.create(null)
    const names = [...this.variables.keys()].sort(compareCodeUnits)
    for (const name of names) {
      const value = this.variables.get(name)!(context)
      if (value !== undefined && typeof value !== 'string') {
        throw new SystemPromptError('INVALID_VARIABLE', `prompt variable ${quote(name)} produced ${quote(value)} instead of a string`)
      }
      variables[name] = value
    }
    return variables
  }

  /** Listener-added schemas are snapshotted too, so an issued assembly never aliases anyone's objects. */
  private seal(assembly: PromptAssembly, canonical: readonly ToolSchema[]): PromptAssembly {
    const { tools } = assembly
    const untouched = tools.length === canonical.length && tools.every((tool, index) => tool === canonical[index])
    if (untouched) return { sections: assembly.sections, tools, variables: assembly.variables }
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
    return { sections: assembly.sections, tools: sealed, variables: assembly.variables }
  }

  private changed(kind: SystemPromptChange['kind'], action: SystemPromptChange['action'], name: string) {
    this.notify('system-prompt/change', { kind, action, name })
  }
}

export default SystemPrompt
