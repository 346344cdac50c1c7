import { quote } from 'dsh-core'
import { CordisError, type Context } from 'cordis'
import { SystemPromptError } from './errors.ts'
import { VARIABLE_NAME } from './interpolate.ts'
import type { AssembleListener, PromptLayer, PromptLayers, ProviderEntry } from './layers.ts'
import type { ContextDefinition, ScopeKey, SectionDefinition, ToolProvider, VariableProvider } from './types.ts'

/** What `system-prompt/change` carries. */
export interface SystemPromptChange {
  kind: 'section' | 'context' | 'variable' | 'tools' | 'suppressor' | 'listener'
  action: 'add' | 'remove'
  name: string
  /** The scope the registration belongs to; absent for global ones. */
  scope?: ScopeKey
}

type Store = { add(layer: PromptLayer): unknown; remove(layer: PromptLayer): boolean }

/**
 * Checks and stores registrations, each as a Cordis effect of the registering plugin's context. The change is
 * announced after the entry is in place; when an announcement throws, the entry is taken out again and the
 * error reaches the caller, so nothing stays half-registered.
 */
export class Registrar {
  constructor(private readonly layers: PromptLayers, private readonly notify: (change: SystemPromptChange) => void) {}

  section(ctx: Context, definition: SectionDefinition, scope: ScopeKey | undefined): () => void {
    const entry = checkNamed('section', definition)
    for (const flag of ['complete', 'interpolate'] as const) {
      if (entry[flag] !== undefined && typeof entry[flag] !== 'boolean') {
        throw new SystemPromptError('INVALID_SECTION', `section ${quote(entry.name)}: ${flag} must be true or false, got ${quote(entry[flag])}`)
      }
    }
    return this.named(ctx, scope, 'section', entry.name, `systemPrompt.section(${entry.name})`, (layer) => layer.sections, entry)
  }

  context(ctx: Context, definition: ContextDefinition, scope: ScopeKey | undefined): () => void {
    const entry = checkNamed('context', definition)
    return this.named(ctx, scope, 'context', entry.name, `systemPrompt.context(${entry.name})`, (layer) => layer.contexts, entry)
  }

  variable(ctx: Context, name: string, provide: VariableProvider, scope: ScopeKey | undefined): () => void {
    if (typeof name !== 'string' || !VARIABLE_NAME.test(name)) {
      throw new SystemPromptError('INVALID_VARIABLE', `prompt variable name ${quote(name)} must match ${VARIABLE_NAME}`)
    }
    if (typeof provide !== 'function') {
      throw new SystemPromptError('INVALID_VARIABLE', `prompt variable ${quote(name)} needs a provider function`)
    }
    return this.named(ctx, scope, 'variable', name, `systemPrompt.variable(${name})`, (layer) => layer.variables, provide)
  }

  tools(ctx: Context, provide: ToolProvider, scope: ScopeKey | undefined): () => void {
    if (typeof provide !== 'function') {
      throw new SystemPromptError('INVALID_PROVIDER_RESULT', `systemPrompt.tools() needs a provider function, got ${quote(provide)}`)
    }
    const entry: ProviderEntry = { owner: ctx.fiber?.name || 'an anonymous plugin', provide }
    return this.anonymous(ctx, scope, 'tools', entry.owner, 'systemPrompt.tools()', (layer) => layer.providers, entry)
  }

  suppressor(ctx: Context, scope: ScopeKey | undefined): () => void {
    return this.anonymous(ctx, scope, 'suppressor', 'runtime context', 'systemPrompt.suppressRuntimeContext()', (layer) => layer.suppressors, {})
  }

  listener(ctx: Context, listener: AssembleListener, scope: ScopeKey): () => void {
    if (typeof listener !== 'function') throw new SystemPromptError('INVALID_LISTENER', `onAssemble() needs a function, got ${quote(listener)}`)
    return this.anonymous(ctx, scope, 'listener', 'system-prompt/assemble', 'systemPrompt.onAssemble()', (layer) => layer.listeners, listener)
  }

  /** Refused when the layer already holds the name; a scope may shadow a global one. */
  private named<T>(ctx: Context, scope: ScopeKey | undefined, kind: 'section' | 'context' | 'variable', name: string, label: string,
    pick: (layer: PromptLayer) => Map<string, T>, value: T): () => void {
    const layer = scope === undefined ? this.layers.global : this.layers.peek(scope)
    if (layer && pick(layer).has(name)) {
      const code = kind === 'section' ? 'DUPLICATE_SECTION' : kind === 'context' ? 'DUPLICATE_CONTEXT' : 'DUPLICATE_VARIABLE'
      const where = scope === undefined ? '' : ` in scope ${quote(scope)}`
      throw new SystemPromptError(code, `${kind === 'variable' ? 'prompt variable' : kind} ${quote(name)} is already registered${where}`)
    }
    return this.effect(ctx, scope, kind, name, label, {
      add: (layer) => pick(layer).set(name, value),
      remove: (layer) => pick(layer).get(name) === value && pick(layer).delete(name),
    })
  }

  private anonymous<T>(ctx: Context, scope: ScopeKey | undefined, kind: SystemPromptChange['kind'], name: string, label: string,
    pick: (layer: PromptLayer) => Set<T>, value: T): () => void {
    return this.effect(ctx, scope, kind, name, label, { add: (layer) => pick(layer).add(value), remove: (layer) => pick(layer).delete(value) })
  }

  private effect(ctx: Context, scope: ScopeKey | undefined, kind: SystemPromptChange['kind'], name: string, label: string, store: Store): () => void {
    const announce = (action: SystemPromptChange['action']) =>
      this.notify(scope === undefined ? { kind, action, name } : { kind, action, name, scope })
    return inScope(scope, label, () => ctx.effect(() => {
      const layer = this.layers.layer(scope)
      store.add(layer)
      try {
        announce('add')
      } catch (error) {
        store.remove(layer)
        this.layers.release(scope)
        throw error
      }
      return () => {
        if (!store.remove(layer)) return
        this.layers.release(scope)
        announce('remove')
      }
    }, label))
  }
}

/** Cordis refuses an effect on a disposed context in general words; a scoped one is named, with the likely cause. */
function inScope<T>(scope: ScopeKey | undefined, label: string, register: () => T): T {
  try {
    return register()
  } catch (error) {
    if (scope === undefined || !(error instanceof CordisError && error.code === 'INACTIVE_EFFECT')) throw error
    throw new SystemPromptError('INACTIVE_SCOPE', `${label} in scope ${quote(scope)} came through a disposed context `
      + '(its agent or session is gone, or the registering plugin was disposed); register through a live one')
  }
}

function checkNamed<T extends SectionDefinition | ContextDefinition>(kind: 'section' | 'context', definition: T): T {
  const { name, order, text } = definition ?? {} as Partial<T>
  const code = kind === 'section' ? 'INVALID_SECTION' : 'INVALID_CONTEXT'
  if (typeof name !== 'string' || name === '') {
    throw new SystemPromptError(code, `${kind} name must be a non-empty string, got ${quote(name)}`)
  }
  if (typeof order !== 'number' || !Number.isFinite(order)) {
    throw new SystemPromptError(code, `${kind} ${quote(name)} needs a finite order, got ${quote(order)}`)
  }
  if (typeof text !== 'string' && typeof text !== 'function') {
    throw new SystemPromptError(code, `${kind} ${quote(name)} needs text as a string or a function, got ${quote(text)}`)
  }
  return { ...definition }
}
