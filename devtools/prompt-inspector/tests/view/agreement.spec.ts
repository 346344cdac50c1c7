import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import AgentSpine from 'dsh-harness'
import AnthropicProvider from 'dsh-llm-anthropic'
import PromptCache from 'dsh-cache-break-detector'
import { startEmulator } from 'dsh-llm-testing/emulator'
import { buildSessionView } from '../../src/view/build.ts'
import { loadSession } from '../../src/view/events.ts'
import type { SessionView } from '../../src/view/model.ts'
import { DEFAULT_PG_SCHEMA, DEFAULT_PG_URL_ENV } from '../../src/cli.ts'
import { run } from '../../src/run.ts'
import { launch, openPage } from './browser.ts'

const KEY_ENV = 'DSH_TEST_AGREEMENT_KEY'
const MODELS = ['emulated-claude-a', 'emulated-claude-b']
const PERSONA = Array.from({ length: 60 }, (_, index) => `Rule ${index + 1}: keep each change small, tested and explained in one sentence.`).join('\n')

let root: string
let log: string
let view: SessionView

/**
 * A real session on the emulator's Anthropic route with the detector: a model switch (both say model_changed),
 * a persona edit the provider explains with a reason DSH does not know, and a server-side eviction only the
 * provider explains. The viewer reads its JSONL.
 */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dsh-view-agreement-'))
  process.env[KEY_ENV] = 'test-key'
  const emulator = await startEmulator(MODELS)
  const ctx = new Context()
  const fibers = [
    await ctx.plugin(AgentSpine, { persist: true, persistenceRoot: root, scripted: false, model: MODELS[0], persona: PERSONA }),
    await ctx.plugin(PromptCache),
    await ctx.plugin(AnthropicProvider, { baseURL: `${emulator.origin}/anthropic`, apiKeyEnv: KEY_ENV, models: MODELS.map((id) => ({ id, provider: 'anthropic' as const })) }),
  ]
  const agent = await ctx.agentLoop.createAgent({ id: 'viewed' })
  await agent.prompt('hello')
  await agent.prompt('go on')
  agent.switchModel(MODELS[1]!)
  await agent.prompt('after the switch')
  await agent.prompt('go on')
  emulator.forceDiagnostics({ cache_miss_reason: { type: 'speed_changed', cache_missed_input_tokens: 77 } })
  agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: `${PERSONA}\nRule 61: answer in English.` })
  await agent.prompt('after the edit')
  await agent.prompt('go on')
  emulator.evict()
  await agent.prompt('after the eviction')
  await agent.session.flushed()
  await ctx.agentLoop.removeAgent('viewed')
  for (const fiber of fibers.reverse()) await fiber.dispose()
  await emulator.close()
  delete process.env[KEY_ENV]
  const files = await readdir(root, { recursive: true })
  log = join(root, String(files.find((name) => String(name).endsWith('viewed.jsonl'))!))
  view = buildSessionView(await loadSession(log, { urlEnv: DEFAULT_PG_URL_ENV, schema: DEFAULT_PG_SCHEMA }))
})
afterAll(async () => { await rm(root, { recursive: true, force: true }) })

describe('the break panel and the summary of a session whose provider gives its own verdict', () => {
  it('show both views of each break, an unknown provider reason marked as such', () => {
    const detected = view.breaks.filter((item) => item.detector).map((item) => item.detector!)
    expect(detected.map(({ reason, provider, agreement }) => ({ reason, provider, agreement }))).toEqual([
      { reason: 'model_changed', provider: { reason: 'model_changed', known: true, missedTokens: expect.any(Number), pending: false }, agreement: 'agree' },
      { reason: 'system_changed', provider: { reason: 'speed_changed', known: false, missedTokens: 77, pending: false }, agreement: 'disagree' },
      { reason: 'provider_miss', provider: { reason: 'previous_message_not_found', known: true, missedTokens: null, pending: false }, agreement: 'provider-only' },
    ])
  })

  it('sums the agreement over the session', () => {
    expect(view.summary.agreement).toEqual({ agree: 1, disagree: 1, dshOnly: 0, providerOnly: 1 })
  })
})

describe('the page of that session, in Chromium', () => {
  it('says the agreement in the summary and both views in the break panel', async () => {
    const out = join(root, 'page.html')
    expect(await run(['view', log, '--out', out])).toMatchObject({ code: 0, stderr: '' })
    const browser = await launch()
    try {
      const { page, watch } = await openPage(browser, out)
      expect(watch.errors).toEqual([])
      const text = (selector: string) => page.$eval(selector, (node) => node.textContent)
      expect(await text('[data-figure="agreement"] .value')).toBe('1 disagree')
      expect(await text('[data-figure="agreement"] .label')).toBe('provider agreed on 1 of 2 breaks both saw; 1 provider-only')
      const index = await page.$$eval('#breaks-list button', (buttons) => buttons.findIndex((button) => /system_changed/.test(button.textContent!)))
      await page.click(`#breaks-list button:nth-of-type(${index + 1})`)
      expect(await text('#detail [data-field="reason"]')).toBe('system_changed')
      expect(await text('#detail [data-field="provider"]')).toBe('speed_changed (unknown provider reason), 77 tokens missed')
      expect(await text('#detail [data-field="agreement"]')).toBe('disagree')
    } finally {
      await browser.close()
    }
  }, 60_000)
})
