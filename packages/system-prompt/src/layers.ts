import type { PromptAssembly, AssembleContext, ContextDefinition, ScopeKey, SectionDefinition, VariableProvider, ToolProvider } from './types.ts'

/** A tool provider and the plugin that registered it. */
export interface ProviderEntry {
  owner: string
  provide: ToolProvider
}

/** A waterfall listener that sees only the assemblies of one scope. */
export type AssembleListener = (assembly: PromptAssembly, context: AssembleContext, next: () => Promise<PromptAssembly>) => Promise<PromptAssembly>

/** Everything registered globally, or in one scope. */
export class PromptLayer {
  readonly sections = new Map<string, SectionDefinition>()
  readonly contexts = new Map<string, ContextDefinition>()
  readonly variables = new Map<string, VariableProvider>()
  readonly providers = new Set<ProviderEntry>()
  readonly listeners = new Set<AssembleListener>()
  readonly suppressors = new Set<object>()

  isEmpty(): boolean {
    return !this.sections.size && !this.contexts.size && !this.variables.size && !this.providers.size
      && !this.listeners.size && !this.suppressors.size
  }
}

/** The global layer and one layer per scope that holds a registration; an emptied scope is dropped. */
export class PromptLayers {
  readonly global = new PromptLayer()
  private readonly scoped = new Map<ScopeKey, PromptLayer>()

  /** The layer of `scope` (global when undefined), created on first use. */
  layer(scope: ScopeKey | undefined): PromptLayer {
    return scope === undefined ? this.global : this.scoped.get(scope) ?? this.open(scope)
  }

  private open(scope: ScopeKey): PromptLayer {
    const layer = new PromptLayer()
    this.scoped.set(scope, layer)
    return layer
  }

  /** The layer of `scope` if it holds anything; never creates one. */
  peek(scope: ScopeKey | undefined): PromptLayer | undefined {
    return scope === undefined ? undefined : this.scoped.get(scope)
  }

  /** Forgets a scope's layer once nothing is registered in it. */
  release(scope: ScopeKey | undefined): void {
    if (scope !== undefined && this.scoped.get(scope)?.isEmpty()) this.scoped.delete(scope)
  }

  /** Entries by name: the global ones, with the scope's shadowing those of the same name. */
  merged<T>(scope: ScopeKey | undefined, pick: (layer: PromptLayer) => Map<string, T>): Map<string, T> {
    const own = this.peek(scope)
    if (!own || !pick(own).size) return pick(this.global)
    return new Map([...pick(this.global), ...pick(own)])
  }
}
