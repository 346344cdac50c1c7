import type { BootedEntry } from './boot.ts'

/**
 * The enabled entry of a booted app that runs `plugin` (its fiber's plugin has that `Config`), for a front door
 * that names its own entry in a message; undefined when none does. Front doors ask this instead of reading fibers.
 */
export function entryRunning(entries: readonly BootedEntry[], plugin: { Config: unknown }): BootedEntry | undefined {
  return entries.find((entry) => !entry.disabled && entry.fiber?.runtime?.Config === plugin.Config)
}
