import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { boot, type BootedApp } from 'dsh-app-boot'
import HarnessPlugin, { Config } from 'dsh-harness'
import Alias from '../src/index.ts'

const apps: BootedApp[] = []
afterAll(() => Promise.all(apps.map((app) => app.dispose())))

describe('dsh-agent-spine-demo', () => {
  it('is dsh-harness: the same plugin, Config and name', () => {
    expect(Alias).toBe(HarnessPlugin)
    expect(Alias.Config).toBe(Config)
    expect(Alias.name).toBe(HarnessPlugin.name)
  })

  it('boots an app file that names it, through the real loader, and serves a turn', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'dsh-spine-alias-'))
    const file = join(folder, 'app.yml')
    await writeFile(file, [
      '- id: spine',
      '  name: dsh-agent-spine-demo',
      '  config:',
      `    persistenceRoot: ${JSON.stringify(join(folder, 'sessions'))}`,
      '    persona: You answer briefly.',
      '',
    ].join('\n'))
    const app = await boot({ file, resolve: (name) => import.meta.resolve(name), logLevel: 'silent' })
    apps.push(app)
    expect(app.entries.map((entry) => entry.name)).toEqual(['dsh-agent-spine-demo'])
    const agent = await app.ctx.harness.openAgent()
    expect((await agent.prompt('hi')).text).toBe('echo: hi')
    expect(await app.ctx.harness.systemPrompt(agent)).toMatch(/You answer briefly\./)
  })
})
