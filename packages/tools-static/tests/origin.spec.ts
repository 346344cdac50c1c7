import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { boot } from 'dsh-app-boot'

const PLUGIN = new URL('../src/index.ts', import.meta.url).href

describe('origin', () => {
  it('records each tool under its app-file entry, whenever it is registered', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-tools-static-'))
    const file = join(dir, 'app.yml')
    await writeFile(file, [
      '- { id: prompt, name: dsh-system-prompt }',
      '- { id: tools, name: dsh-tools }',
      `- { id: local, name: ${PLUGIN}, config: { tools: [{ name: now, description: d }, { name: later, description: d, delayMs: 20 }] } }`,
      `- { id: extra, name: ${PLUGIN}, config: { tools: [{ name: after, description: d, afterReadyMs: 10 }] } }`,
    ].join('\n'))
    const app = await boot({ file, resolve: (name) => import.meta.resolve(name), logLevel: 'silent' })
    try {
      await expect.poll(() => app.ctx.tools.has('after'), { timeout: 2000, interval: 5 }).toBe(true)
      expect(['now', 'later', 'after'].map((name) => app.ctx.tools.origin(name))).toEqual([
        { plugin: 'tools-static', entry: 'local' },
        { plugin: 'tools-static', entry: 'local' },
        { plugin: 'tools-static', entry: 'extra' },
      ])
    } finally {
      await app.dispose()
    }
  })
})
