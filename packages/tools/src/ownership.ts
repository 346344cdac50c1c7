import type { Context } from 'cordis'

/**
 * Ties registrations to the plugin that made them with one Cordis effect per plugin instead of one per
 * registration. An effect costs Cordis several captured stack traces, which made registering thousands
 * of tools slow; the plugin's effect removes all of its remaining registrations, newest first, when the
 * plugin is disposed, exactly as separate effects would.
 */
export class PluginOwnership {
  private readonly groups = new WeakMap<object, Set<() => void>>()

  /**
   * Runs `add` (with the owning plugin's fiber) now and `remove` once: when the returned disposer runs or
   * when `ctx`'s plugin goes away.
   */
  own(ctx: Context, add: (fiber: Context['fiber']) => void, remove: () => void): () => Promise<void> {
    const fiber = ctx.fiber
    let group = this.groups.get(fiber)
    if (!group) {
      const members = new Set<() => void>()
      // Throws for a plugin that is no longer active, before anything is added.
      ctx.effect(() => () => {
        if (this.groups.get(fiber) === members) this.groups.delete(fiber)
        for (const member of [...members].reverse()) member()
      }, 'tools.register()')
      this.groups.set(fiber, group = members)
    }
    const members = group
    add(fiber)
    const member = () => {
      if (members.delete(member)) remove()
    }
    members.add(member)
    return async () => member()
  }
}
