import { compareCodeUnits, quote } from 'dsh-core'
import { SystemPromptError } from './errors.ts'
import type { PromptLayers } from './layers.ts'
import type { AssembleContext, AssembledContext, AssembledSection, ContextDefinition, ScopeKey, SectionDefinition } from './types.ts'

const byOrderThenName = (a: { order: number; name: string }, b: { order: number; name: string }) =>
  a.order - b.order || compareCodeUnits(a.name, b.name)

function resolveText(kind: 'section' | 'context', { name, text }: SectionDefinition | ContextDefinition, context: AssembleContext): string {
  const value = typeof text === 'function' ? text(context) : text
  if (typeof value !== 'string') {
    throw new SystemPromptError(kind === 'section' ? 'INVALID_SECTION' : 'INVALID_CONTEXT', `${kind} ${quote(name)} produced ${quote(value)} instead of a string`)
  }
  return value
}

/**
 * The scope's sections (scoped ones shadow global ones of the same name) in order, empty ones included, and
 * the complete section if one is effective. Two complete sections reject the assembly.
 */
export function collectSections(layers: PromptLayers, scope: ScopeKey | undefined, context: AssembleContext) {
  const sorted = [...layers.merged(scope, (layer) => layer.sections).values()].sort(byOrderThenName)
  const complete = sorted.filter((section) => section.complete === true)
  if (complete.length > 1) {
    throw new SystemPromptError('MULTIPLE_COMPLETE_SECTIONS', `only one complete section may be effective, but ${complete.map((section) => quote(section.name)).join(' and ')} are; `
      + 'dispose one or register it without complete: true')
  }
  let completeSection: AssembledSection | undefined
  const sections = sorted.map((definition): AssembledSection => {
    const text = resolveText('section', definition, context)
    const section: AssembledSection = definition.interpolate === false ? { name: definition.name, text, interpolate: false } : { name: definition.name, text }
    if (definition.complete === true) completeSection = { ...section }
    return section
  })
  return { sections, completeSection }
}

/** The scope's runtime contexts in order (scoped ones shadow global ones); none while suppressed. */
export function collectContexts(layers: PromptLayers, scope: ScopeKey | undefined, context: AssembleContext, suppressed: boolean): AssembledContext[] {
  if (suppressed) return []
  const definitions = layers.merged(scope, (layer) => layer.contexts)
  if (!definitions.size) return []
  return [...definitions.values()].sort(byOrderThenName).map((definition) => ({ name: definition.name, text: resolveText('context', definition, context) }))
}

/**
 * Every variable's value for this assembly: global ones, then the scope's (which shadow them). The maps are
 * read live, so a variable registered while another one is evaluated takes part in this same assembly.
 */
export function collectVariables(layers: PromptLayers, scope: ScopeKey | undefined, context: AssembleContext): Record<string, string | undefined> {
  const variables: Record<string, string | undefined> = Object.create(null)
  const own = layers.peek(scope)
  for (const layer of own ? [layers.global, own] : [layers.global]) {
    for (const [name, provide] of layer.variables) {
      if (layer === layers.global && own?.variables.has(name)) continue
      const value = provide(context)
      if (value !== undefined && typeof value !== 'string') {
        throw new SystemPromptError('INVALID_VARIABLE', `prompt variable ${quote(name)} produced ${quote(value)} instead of a string`)
      }
      variables[name] = value
    }
  }
  return variables
}
