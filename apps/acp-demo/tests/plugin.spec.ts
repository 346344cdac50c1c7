import { describe, expect, it } from 'vitest'
import { loadWithSessions, toolOrderForwardingCases } from 'dsh-harness/testing'
import AcpDemoApp from '../src/index.ts'
import type { AcpDemoConfig } from '../src/config.ts'
import { spineConfig } from '../src/config.ts'

const load = (config: Record<string, unknown>) => loadWithSessions(AcpDemoApp, config)

describe('the acp-demo plugin', () => {
  toolOrderForwardingCases(AcpDemoApp, (ctx) => ctx.acpDemo.config)

  it('exposes its parsed config, with defaults, under ctx.acpDemo', async () => {
    const ctx = await load({ maxSteps: 3 })
    expect(ctx.acpDemo.config).toMatchObject({
      model: 'scripted-echo', agentName: 'dsh-acp-demo', agentTitle: 'DSH', maxSteps: 3, mcpStartupTimeoutMs: 10_000, mcpCallTimeoutMs: 60_000, sessionListPageSize: 50,
    })
    expect(ctx.acpDemo.info).toEqual({ name: 'dsh-acp-demo', title: 'DSH', version: '0.1.0' })
    expect(ctx.agentLoop.config).toMatchObject({ model: 'scripted-echo', maxSteps: 3 })
  })

  it('hands the spine no app keys', () => {
    const config = { agentName: 'a', agentTitle: 'b', persona: '', model: 'm', toolOrder: undefined } as unknown as AcpDemoConfig
    expect(spineConfig(config)).toEqual({ persona: '', model: 'm' })
  })

  it.each([
    [{ toolOrder: [] }, /toolOrder is an empty list/],
    [{ toolOrder: ['a'] }, /<unlisted-tools>/],
    [{ toolOrder: 'a' }, /toolOrder/],
    [{ persona: 5 }, /persona/],
    [{ model: '' }, /model/],
    [{ maxSteps: 0 }, /maxSteps/],
    [{ persistenceRoot: 3 }, /persistenceRoot/],
    [{ scripted: 'yes' }, /scripted/],
    [{ agentName: '' }, /agentName/],
    [{ agentName: 7 }, /agentName/],
    [{ agentTitle: [] }, /agentTitle/],
    [{ mcpStartupTimeoutMs: 0 }, /mcpStartupTimeoutMs expected number >= 1 but got 0/],
    [{ mcpStartupTimeoutMs: 2_147_483_648 }, /mcpStartupTimeoutMs expected number <= 2147483647/],
    [{ mcpCallTimeoutMs: 'long' }, /mcpCallTimeoutMs/],
    [{ mcpCallTimeoutMs: 1.5 }, /mcpCallTimeoutMs/],
    [{ sessionListPageSize: 0 }, /sessionListPageSize expected number >= 1 but got 0/],
    [{ sessionListPageSize: 'all' }, /sessionListPageSize/],
  ])('fails to load with %j', async (config, message) => {
    await expect(load(config)).rejects.toThrow(message)
  })
})
