import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { messagesStream, readMessagesRequest } from './anthropic-wire.ts'
import { addedTools, idealPrefixChars, type Wire } from './ideal.ts'
import { chatStream, readChatRequest } from './openai-wire.ts'
import { PrefixStore, blockTokens, tokensOf } from './prefix-store.ts'
import { echoReply, isCompaction, type ReadRequest, type RenderedPrompt } from './prompt.ts'

/** What the emulator recorded about one answered request. */
export interface LedgerEntry {
  wire: Wire
  promptTokens: number
  /** Cached tokens reported to the client: the longest prefix seen before, in whole blocks. */
  cachedTokens: number
  /** Whole-block tokens of the prefix an ideal harness would have kept (see `idealPrefixChars`). */
  idealTokens: number
  /** Tool names this request declares that the previous one did not. */
  added: string[]
  /** The request asks for a compaction summary. */
  compaction: boolean
}

const ROUTES: Record<string, { wire: Wire; read: typeof readChatRequest; stream: typeof chatStream }> = {
  '/v1/chat/completions': { wire: 'chat-completions', read: readChatRequest, stream: chatStream },
  '/deepseek/v1/chat/completions': {
    wire: 'deepseek', read: (body, headers, models) => readChatRequest(body, headers, models, true), stream: chatStream,
  },
  '/v1/messages': { wire: 'messages', read: readMessagesRequest, stream: messagesStream },
}

/**
 * A loopback provider with a prefix cache, speaking Chat Completions (`<origin>/v1/chat/completions`),
 * DeepSeek's Chat Completions with tool-update blocks (`<origin>/deepseek/v1/chat/completions`) and
 * Messages (`<origin>/v1/messages`). It serves one conversation: each request is rendered as the
 * model sees it, checked against the wire protocol, looked up in the prefix cache and answered as the
 * offline `scripted-echo` model would, with the cache read in the usage.
 */
export async function startEmulator(models: readonly string[]) {
  const store = new PrefixStore()
  const ledger: LedgerEntry[] = []
  const problems: string[] = []
  let previous: RenderedPrompt | undefined

  const answer = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const route = req.method === 'POST' ? ROUTES[new URL(req.url ?? '/', 'http://emulator').pathname] : undefined
    if (!route) {
      problems.push(`${req.method} ${req.url}: no such endpoint`)
      return refuse(res, 404, `no endpoint ${req.method} ${req.url}`)
    }
    let body: unknown
    try {
      body = JSON.parse(raw)
    } catch {
      problems.push(`${req.url}: the body is not JSON`)
      return refuse(res, 400, 'the body is not JSON')
    }
    const read: ReadRequest = route.read(body, req.headers, models)
    if (read.problems.length) {
      problems.push(...read.problems)
      return refuse(res, 400, read.problems.join('; '))
    }
    const { prompt } = read
    const cachedTokens = store.lookupAndStore(prompt.text)
    const idealTokens = Math.min(blockTokens(idealPrefixChars(previous, prompt, route.wire)), blockTokens(prompt.text.length))
    const reply = echoReply(read.turns)
    const usage = {
      promptTokens: tokensOf(prompt.text.length),
      cachedTokens,
      outputTokens: tokensOf(reply.text.length + (reply.call ? reply.call.name.length + reply.call.arguments.length : 0)) || 1,
    }
    ledger.push({
      wire: route.wire, promptTokens: usage.promptTokens, cachedTokens, idealTokens, added: addedTools(previous, prompt), compaction: isCompaction(read.turns),
    })
    previous = prompt
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.end(route.stream(reply, (body as { model: string }).model, usage))
  }

  const server = http.createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    try {
      answer(req, res, Buffer.concat(parts).toString('utf8'))
    } catch (error) {
      problems.push(`${req.url}: the emulator failed: ${(error as Error).stack ?? error}`)
      refuse(res, 500, 'emulator failure')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    ledger,
    problems,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function refuse(res: ServerResponse, status: number, message: string) {
  if (res.headersSent) return res.end()
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }))
}
