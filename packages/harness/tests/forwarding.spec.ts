import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Schema from 'schemastery'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import AgentLoop from 'dsh-agent-loop'
import { boot, type BootedApp } from 'dsh-app-boot'
import SessionStore from 'dsh-session'
import SystemPrompt from 'dsh-system-prompt'

// The spine reads its owners' schemas when it is first imported, so the keys are added before that import
// (this file's module graph is its own) and the app boots through the real loader from a real YAML file.
const owners = [SystemPrompt, AgentLoop, SessionStore] as const
const originals = owners.map((owner) => owner.Config)
/** What each owner's schema validated last: the config the owner was given. */
const received: Record<string, unknown>[] = []
let app: BootedApp

beforeAll(async () => {
  owners.forEach((owner, index) => {
    const extended = Schema.intersect([originals[index]!, Schema.object({ [`probe${index}`]: Schema.string() })])
    ;(owner as { Config: unknown }).Config = Schema.transform(extended, (value: Record<string, unknown>) => (received[index] = value))
  })
  const folder = await mkdtemp(join(tmpdir(), 'dsh-spine-forward-'))
  const file = join(folder, 'app.yml')
  await writeFile(file, [
    '- id: spine',
    '  name: dsh-harness',
    '  config:',
    `    persistenceRoot: ${JSON.stringify(join(folder, 'sessions'))}`,
    '    probe0: to-system-prompt',
    '    probe1: to-agent-loop',
    '    probe2: to-session-store',
    '',
  ].join('\n'))
  app = await boot({ file, resolve: (name) => import.meta.resolve(name), logLevel: 'silent' })
})

afterAll(async () => {
  await app?.dispose()
  owners.forEach((owner, index) => { (owner as { Config: unknown }).Config = originals[index] })
})

describe('config forwarding by schema', () => {
  it('hands a key added to an owner\'s schema to that owner, and to no other', () => {
    expect(app.ctx.systemPrompt.config).toMatchObject({ probe0: 'to-system-prompt' })
    expect(received.map((config) => [config.probe0, config.probe1, config.probe2])).toEqual([
      ['to-system-prompt', undefined, undefined],
      [undefined, 'to-agent-loop', undefined],
      [undefined, undefined, 'to-session-store'],
    ])
  })

  it('keeps an omitted toolOrder absent', () => {
    expect('toolOrder' in app.ctx.systemPrompt.config).toBe(false)
    expect('toolOrder' in received[0]!).toBe(false)
  })
})
