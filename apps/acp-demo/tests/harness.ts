import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { client, methods, ndJsonStream } from '@agentclientprotocol/sdk'
import type { ClientConnection, RequestError, RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from '@agentclientprotocol/sdk'

export const BIN = fileURLToPath(new URL('../bin/dsh-acp-demo', import.meta.url))

/** A temp folder holding `cordis.yml` (and any other files); `root` is also where sessions go. */
export async function appFolder(yaml: string, files: Record<string, string> = {}): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-acp-demo-'))
  const file = join(dir, 'cordis.yml')
  await writeFile(file, yaml)
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text)
  return { dir, file }
}

/** The app entry with sessions under the YAML's folder, plus a dsh-tools-static entry. */
export function appYaml(appConfig: string[] = [], extra = ''): string {
  return [
    '- id: app',
    '  name: dsh-acp-demo',
    '  config:',
    '    persistenceRoot: ./sessions',
    ...appConfig.map((line) => `    ${line}`),
    '- id: tools',
    '  name: dsh-tools-static',
    '  config:',
    '    tools:',
    '      - { name: lookup, description: Look a word up., result: "a small furry animal" }',
    '      - { name: zeta, description: The last tool. }',
    extra,
  ].join('\n') + '\n'
}

export interface Spawned {
  child: ChildProcessWithoutNullStreams
  /** Every byte the child wrote to stdout, so far. */
  stdout(): string
  stderr(): string
  exited: Promise<number | null>
}

export interface SpawnOptions {
  env?: Record<string, string>
  cwd?: string
  /** How the client answers `session/request_permission` (without it, the SDK client refuses the method). */
  onPermission?: (params: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>
}

export function spawnApp(args: string[], options: SpawnOptions = {}): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString('utf8') })
  child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString('utf8') })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, stdout: () => out, stderr: () => err, exited }
}

/** A running agent process driven by the SDK's own client over the child's stdio. */
export interface Driven extends Spawned {
  connection: ClientConnection
  updates: SessionNotification[]
  /** Notifications of methods the SDK does not know (ACP extensions, `_`-prefixed), in order. */
  extensions: { method: string; params: unknown }[]
  /** Writes raw bytes to the child's stdin, bypassing the client. */
  writeRaw(text: string): void
  /** Closes stdin and waits for the exit code. */
  stop(): Promise<number | null>
}

export function drive(args: string[], options: SpawnOptions = {}): Driven {
  const spawned = spawnApp(args, options)
  const { child } = spawned
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)))
      child.stdout.on('end', () => {
        // the client may have closed its side first (the process exited before its stdout ended)
        try { controller.close() } catch {}
      })
    },
  })
  const updates: SessionNotification[] = []
  const extensions: { method: string; params: unknown }[] = []
  let app = client({ name: 'dsh-acp-demo tests' })
    .onNotification(methods.client.session.update, ({ params }) => { updates.push(params) })
    .onNotification('*', ({ method, params }) => { extensions.push({ method, params }) })
  const { onPermission } = options
  if (onPermission) app = app.onRequest(methods.client.session.requestPermission, ({ params, signal }) => onPermission(params, signal))
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin), input))
  return {
    ...spawned,
    connection,
    updates,
    extensions,
    writeRaw: (text) => child.stdin.write(text),
    stop: async () => {
      child.stdin.end()
      const code = await spawned.exited
      connection.close()
      return code
    },
  }
}

/** initialize + session/new; returns the session id. */
export async function openSession(driven: Driven, cwd = tmpdir()): Promise<string> {
  await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
  const { sessionId } = await driven.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] })
  return sessionId
}

export function prompt(driven: Driven, sessionId: string, text: string) {
  return driven.connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] })
}

/** The text of the agent_message_chunk updates of a session, concatenated. */
export function messageText(updates: readonly SessionNotification[], sessionId: string): string {
  return updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => (n.update as { content: { type: string; text?: string } }).content.text ?? '')
    .join('')
}

/** The event types of a session log, in order. */
export async function sessionEvents(dir: string, sessionId: string): Promise<{ type: string; data: any }[]> {
  const text = await readFile(join(dir, 'sessions', `${sessionId}.jsonl`), 'utf8').catch(() => '')
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Checks that turns and steps open and close in pairs, properly nested. */
export function checkBalanced(events: readonly { type: string; data: any }[]): void {
  let turn = 0
  let step = 0
  for (const { type, data } of events) {
    if (type === 'turn/start') { if (turn) throw new Error(`turn ${data.turn} started inside turn ${turn}`); turn = data.turn }
    if (type === 'step/start') { if (!turn || step) throw new Error(`step ${data.step} started outside a turn or inside step ${step}`); step = data.step }
    if (type === 'step/end') { if (step !== data.step) throw new Error(`step ${data.step} ended but ${step} was open`); step = 0 }
    if (type === 'turn/end') { if (turn !== data.turn || step) throw new Error(`turn ${data.turn} ended unbalanced`); turn = 0 }
  }
  if (turn || step) throw new Error('the log ends inside a turn')
}

/** The error an ACP request is refused with (fails the test when it succeeds). */
export async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise
  } catch (error) {
    return error as RequestError
  }
  throw new Error('expected the request to fail')
}
