import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Plugin } from 'cordis'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import { describe, expect, it } from 'vitest'

/** Loads `plugin` (the spine, or an app plugin that mounts it) in a fresh Context, with sessions in a new temp folder. */
export async function loadWithSessions(plugin: Plugin, config: Record<string, unknown>): Promise<Context> {
  const ctx = new Context()
  const persistenceRoot = await mkdtemp(join(tmpdir(), 'dsh-spine-'))
  await ctx.plugin(plugin, { persistenceRoot, ...config })
  return ctx
}

/**
 * The toolOrder forwarding every plugin that mounts the spine keeps: omitted, it stays absent down to
 * SystemPrompt (so SystemPrompt's own default applies); configured, it arrives intact. `ownConfig` gives the
 * plugin's own parsed config (`ctx.acpDemo.config`), which must say the same; the spine has none.
 */
export function toolOrderForwardingCases(plugin: Plugin, ownConfig?: (ctx: Context) => { toolOrder?: unknown }): void {
  describe('toolOrder forwarding', () => {
    it('keeps an omitted toolOrder absent down to SystemPrompt', async () => {
      const ctx = await loadWithSessions(plugin, { persona: 'Be brief.' })
      if (ownConfig) expect('toolOrder' in ownConfig(ctx)).toBe(false)
      expect('toolOrder' in ctx.systemPrompt.config).toBe(false)
      expect(ctx.systemPrompt.toolOrder).toBeUndefined()
      expect(ctx.systemPrompt.config.persona).toBe('Be brief.')
    })

    it('forwards a configured toolOrder intact', async () => {
      const toolOrder = ['zeta', TOOL_ORDER_REST, 'alpha']
      const ctx = await loadWithSessions(plugin, { toolOrder })
      if (ownConfig) expect(ownConfig(ctx).toolOrder).toEqual(toolOrder)
      expect(ctx.systemPrompt.config.toolOrder).toEqual(toolOrder)
      expect(ctx.systemPrompt.toolOrder).toEqual(toolOrder)
    })
  })
}
