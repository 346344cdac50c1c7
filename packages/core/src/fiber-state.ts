/**
 * True once the plugin that owns `ctx` was disposed (Cordis clears a fiber's `uid` then, and refuses new
 * effects with "cannot create effect on inactive context"): an `apply()` that awaited something slow (a
 * startup timeout may have disposed the app meanwhile) checks it before making more effects.
 */
export function isGone(ctx: { fiber: { uid: number | null } }): boolean {
  return ctx.fiber.uid === null
}
