import { promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { SessionStore } from '../src/store.ts'
import { storeContract } from '../src/testing/index.ts'

storeContract('JSONL', {
  async space() {
    const root = await fs.mkdtemp(join(tmpdir(), 'dsh-contract-'))
    return {
      async start() {
        const ctx = new Context()
        const fiber = await ctx.plugin(SessionStore, { persistenceRoot: root, persist: true })
        return { sessions: ctx.sessions, dispose: () => fiber.dispose() }
      },
      remove: () => fs.rm(root, { recursive: true, force: true }),
    }
  },
})
