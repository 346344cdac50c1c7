import type { Context, EffectMeta, Fiber } from 'cordis'
import type { BootedEntry } from 'dsh-app-boot'

/** Every live fiber of an app, found through the plugin registry. */
export function allFibers(ctx: Context): Fiber<Context>[] {
  const fibers: Fiber<Context>[] = []
  for (const runtime of ctx.registry.values()) {
    for (const fiber of runtime.fibers) fibers.push(fiber)
  }
  return fibers
}

/** Effect labels of a fiber, nested ones included. */
export function effectLabels(fiber: Fiber<Context>): string[] {
  const labels: string[] = []
  const walk = (meta: EffectMeta) => {
    labels.push(meta.label)
    meta.children.forEach(walk)
  }
  fiber.getEffects().forEach(walk)
  return labels
}

/**
 * The app-file entry a fiber was started under (itself or an ancestor), if any. Fibers are compared by
 * uid: the loader hands out tracing proxies, so the same fiber can arrive as different objects.
 */
export function entryOf(fiber: Fiber<Context>, entries: readonly BootedEntry[]): BootedEntry | undefined {
  const byUid = new Map(entries.filter((entry) => entry.fiber?.uid != null).map((entry) => [entry.fiber!.uid, entry]))
  let current = fiber
  while (current.uid != null) {
    const entry = byUid.get(current.uid)
    if (entry) return entry
    const parent = current.parent.fiber
    if (!parent || parent.uid === current.uid) return undefined
    current = parent
  }
  return undefined
}
