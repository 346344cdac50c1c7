import { quote } from 'dsh-core'
import type { Context } from 'cordis'
import { SystemPromptError } from './errors.ts'
import type { ScopeKey } from './types.ts'

// A symbol: Cordis reads symbol properties of a context directly, without its service lookup.
const SCOPE = Symbol.for('dsh-system-prompt.scope')

/**
 * A context whose `systemPrompt` registrations and `system-prompt/assemble` listeners belong to `scope`
 * (an agent's or a session's), as if made through `systemPrompt.scope(scope)`; effects stay `ctx`'s.
 */
export function scopedContext(ctx: Context, scope: ScopeKey): Context {
  if (typeof scope !== 'string' || scope === '') {
    throw new SystemPromptError('INVALID_SCOPE', `a scoped context needs a non-empty string scope (a session or agent id), got ${quote(scope)}`)
  }
  return ctx.extend({ [SCOPE]: scope })
}

/** The scope a context was given by `scopedContext()`, or undefined for an ordinary (global) one. */
export function contextScope(ctx: Context): ScopeKey | undefined {
  return (ctx as unknown as Record<symbol, ScopeKey | undefined>)[SCOPE]
}
