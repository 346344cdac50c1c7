/**
 * The root-context service an inspection boot provides (`boot({ inspection: true })` of `dsh-app-boot`, which
 * `dsh-prompt` uses): the app is started to be looked at, never served, so no model is called. A plugin whose
 * start would read a secret only to fail early without it (an HTTP model adapter and its API key) skips that
 * check then; the secret is still read where it is used, so nothing runs on a missing one.
 */
export const INSPECTION_SERVICE = 'dshInspection'

/** True when `ctx` belongs to an app booted for inspection (see `INSPECTION_SERVICE`). */
export function isInspection(ctx: { get(name: string, strict?: boolean): unknown }): boolean {
  return ctx.get(INSPECTION_SERVICE, false) !== undefined
}
