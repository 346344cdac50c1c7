import { methods } from '@agentclientprotocol/sdk'
import type { SessionNotification } from '@agentclientprotocol/sdk'
import { startOutage, storedEvents, throwawaySchema } from 'dsh-session-postgres/testing'
import { afterEach, describe, expect, inject, it, onTestFinished } from 'vitest'
import { appFolder, appYaml, checkBalanced, drive, openSession, prompt, type Driven } from './harness.ts'

const URL_ENV = 'DSH_TEST_ACP_PG_URL'
const RUNS = 2

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) driven.child.kill('SIGKILL')
})

function pgYaml(schema: string): string {
  return appYaml(['sessionStore: external', 'permissions: { default: ask }']) + [
    '- id: sessions',
    '  name: dsh-session-postgres',
    `  config: { urlEnv: ${URL_ENV}, schema: ${schema} }`,
  ].join('\n') + '\n'
}

function start(file: string, url: string, options: Parameters<typeof drive>[1] = {}): Driven {
  const driven = drive([file], { ...options, env: { [URL_ENV]: url, DSH_LOG_LEVEL: 'warn' } })
  running.push(driven)
  return driven
}

const kinds = (updates: readonly SessionNotification[]) => updates.map((n) => n.update.sessionUpdate)

// Each run: a process whose statements reach PostgreSQL through a relay that holds them 300 ms (a slow
// network), killed with SIGKILL the moment its client receives session/request_permission; then a second
// process loading the session: what the editor was shown must be in the replay.
describe('nothing reaches an ACP client before PostgreSQL has committed it (the real bin, kill -9)', { timeout: 120_000 }, () => {
  it(`replays the prompt and the tool call the editor saw when it was asked, after kill -9 (${RUNS} runs)`, async () => {
    const { schema, drop } = throwawaySchema(inject('pgUrl'))
    onTestFinished(drop)
    const { file } = await appFolder(pgYaml(schema))
    const relay = await startOutage(inject('pgUrl'))
    onTestFinished(() => relay.close())
    for (let run = 1; run <= RUNS; run++) {
      relay.delay(0)
      const shown: string[][] = []
      const a: Driven = start(file, relay.url, {
        onPermission: () => {
          a.child.kill('SIGKILL')
          shown.push(kinds(a.updates))
          return new Promise(() => {})
        },
      })
      const sessionId = await openSession(a)
      relay.delay(300)
      prompt(a, sessionId, `/call lookup {"word":"run ${run}"}`).catch(() => {})
      await a.exited
      // the editor had shown the tool call when it was asked about it
      expect(shown).toEqual([['available_commands_update', 'tool_call']])

      // B loads it through the slow relay and is killed as soon as it has answered: the replay showed the
      // cut-off call closed with an error result, so that result is stored
      relay.delay(0)
      const b = start(file, relay.url)
      await b.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
      relay.delay(300)
      await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd: '/', mcpServers: [] })
      b.child.kill('SIGKILL')
      const replayed = b.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as { sessionUpdate: string; [key: string]: any })
      expect(replayed.map((update) => update.sessionUpdate), `run ${run}`).toEqual(['user_message_chunk', 'tool_call', 'tool_call_update'])
      expect(replayed[0]!.content).toEqual({ type: 'text', text: `/call lookup {"word":"run ${run}"}` })
      expect(replayed[1]).toMatchObject({ title: 'lookup', rawInput: { word: `run ${run}` } })
      expect(replayed[2]).toMatchObject({ status: 'failed' })
      await b.exited
      const stored = await storedEvents(inject('pgUrl'), schema, sessionId)
      checkBalanced(stored)
      expect(stored.filter((event) => event.type === 'tool/result').map((event) => event.data.isError)).toEqual([true])
    }
  })
})
