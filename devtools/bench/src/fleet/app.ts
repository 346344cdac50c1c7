import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { client, methods, ndJsonStream, type ClientConnection } from '@agentclientprotocol/sdk'

const BIN = fileURLToPath(new URL('../../../../apps/acp-demo/bin/dsh-acp-demo', import.meta.url))
export const MODEL = 'fleet-scripted'
export const URL_ENV = 'DSH_FLEET_PG_URL'

/**
 * Writes the fleet's app file into `dir`: dsh-acp-demo on `sessionStore: external`, dsh-session-postgres on
 * `schema`, and the scripted model playing `script.json`, where every answer is `ok` after `modelMs`.
 * Script answers are consumed one per model call across the process, so it holds `answers` of them.
 */
export async function writeApp(dir: string, name: string, schema: string, modelMs: number, answers: number): Promise<string> {
  const script = join(dir, `${name}-script.json`)
  const answer = JSON.stringify({ text: 'ok', delayMs: modelMs })
  await writeFile(script, `{"responses":[${Array.from({ length: answers }, () => answer).join(',')}]}\n`)
  const file = join(dir, `${name}.yml`)
  await writeFile(file, [
    '- id: app',
    '  name: dsh-acp-demo',
    '  config:',
    '    scripted: false',
    `    model: ${MODEL}`,
    '    sessionStore: external',
    '- id: model',
    '  name: dsh-llm-scripted',
    `  config: { models: [${MODEL}], script: ${JSON.stringify(script)} }`,
    '- id: sessions',
    '  name: dsh-session-postgres',
    `  config: { urlEnv: ${URL_ENV}, schema: ${schema}, applicationName: dsh-fleet-${name} }`,
  ].join('\n') + '\n')
  return file
}

/** One dsh-acp-demo process (the real bin) driven by the ACP SDK's client over its stdio. */
export interface FleetProcess {
  name: string
  child: ChildProcessWithoutNullStreams
  connection: ClientConnection
  stderr(): string
  /** Resident set size of the process now, in bytes (from /proc). */
  rss(): Promise<number>
  /** CPU time the process has used so far (user + system), in seconds (from /proc). */
  cpuSeconds(): Promise<number>
  newSession(): Promise<string>
  prompt(sessionId: string, text: string): Promise<unknown>
  close(sessionId: string): Promise<unknown>
  stop(): Promise<number | null>
}

export async function startProcess(name: string, file: string, url: string): Promise<FleetProcess> {
  const child = spawn(process.execPath, [BIN, file], {
    env: { ...process.env, [URL_ENV]: url, DSH_LOG_LEVEL: 'warn' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let err = ''
  child.stderr.on('data', (chunk: Buffer) => { err = (err + chunk.toString('utf8')).slice(-20_000) })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)))
      child.stdout.on('end', () => { try { controller.close() } catch {} })
    },
  })
  const connection = client({ name: `dsh-bench fleet ${name}` })
    .onNotification(methods.client.session.update, () => {})
    .connect(ndJsonStream(Writable.toWeb(child.stdin), input))
  await connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
  return {
    name,
    child,
    connection,
    stderr: () => err,
    async rss() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8')
      return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024
    },
    async cpuSeconds() {
      const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8')
      // fields after the parenthesised command name; utime and stime are the 14th and 15th, in clock ticks (100 a second)
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return (Number(fields[11]) + Number(fields[12])) / 100
    },
    async newSession() {
      return (await connection.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] })).sessionId
    },
    prompt: (sessionId, text) => connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }),
    close: (sessionId) => connection.agent.request(methods.agent.session.close, { sessionId }),
    async stop() {
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      const code = await exited
      clearTimeout(timer)
      connection.close()
      return code
    },
  }
}
