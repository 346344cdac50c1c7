import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { messagesStream, readMessagesRequest } from './anthropic-wire.ts'
import { CacheDiagnostics } from './diagnostics.ts'
import { addedTools, idealPrefixChars, type Wire } from './ideal.ts'
import { chatStream, readChatRequest } from './openai-wire.ts'
import { tokensOf } from './prefix-store.ts'
import { echoReply, isCompaction, type ReadRequest, type RenderedPrompt } from './prompt.ts'
import { providerCache, type EmulatedProfile, type ProviderCache } from './provider-cache.ts'

/** What the emulator recorded about one answered request. */
export interface LedgerEntry {
  wire: Wire
  /** Whose cache rules answered it (the route's provider). */
  profile: EmulatedProfile
  promptTokens: number
  /** Cached tokens reported to the client, by the route's provider rules (`providerCache`). */
  cachedTokens: number
  /** Tokens of the prefix an ideal harness would have kept (see `idealPrefixChars`), as the route's rules can serve it. */
  idealTokens: number
  /** Tokens the request wrote to an explicit cache (reported as written on Messages and OpenAI's route). */
  writtenTokens: number
  /** Output tokens reported for the answer. */
  outputTokens: number
  /** Cache markers the request carried (explicit-cache routes). */
  marks: number
  /** Tool names this request declares that the previous one did not. */
  added: string[]
  /** The request asks for a compaction summary. */
  compaction: boolean
}

interface Route {
  wire: Wire
  /** The wire whose ideal applies: Anthropic's own API declares tools up front, as Chat Completions does (a request that announces tool changes in history gets the Messages ideal). */
  ideal: Wire
  profile: EmulatedProfile
  read: (body: unknown, headers: IncomingMessage['headers'], models: readonly string[]) => ReadRequest
  stream: (reply: Parameters<typeof chatStream>[0], model: string, usage: Parameters<typeof chatStream>[2], message: ResponseMessage) => string
}

/** What a response says about itself: its id and, on Messages, Anthropic's cache diagnostics when the request asked. */
export interface ResponseMessage {
  id: string
  diagnostics?: unknown
}

const chat = (profile: EmulatedProfile, wire: Wire = 'chat-completions'): Route => ({
  wire, ideal: wire, profile, read: (body, headers, models) => readChatRequest(body, headers, models, profile),
  // OpenAI reports the writes its explicit breakpoints are billed for
  stream: profile === 'openai' ? (reply, model, usage) => chatStream(reply, model, usage, true) : (reply, model, usage) => chatStream(reply, model, usage),
})
const messages = (profile: 'deepseek' | 'anthropic'): Route =>
  ({ wire: 'messages', ideal: profile === 'anthropic' ? 'chat-completions' : 'messages', profile, read: (body, headers, models) => readMessagesRequest(body, headers, models, profile), stream: messagesStream })

/** Paths by provider: each speaks its wire and answers with its provider's cache rules. */
export const ROUTES: Record<string, Route> = {
  '/v1/chat/completions': chat('generic'),
  '/openai/v1/chat/completions': chat('openai'),
  '/dashscope/v1/chat/completions': chat('dashscope'),
  '/deepseek/v1/chat/completions': chat('deepseek', 'deepseek'),
  // a llama.cpp server: `EmulatorOptions.slots` slots, each holding one prompt (`slotCache`)
  '/llamacpp/v1/chat/completions': chat('llamacpp'),
  // DeepSeek's Anthropic-compatible route (today's Messages figures) and Anthropic's own
  '/v1/messages': messages('deepseek'),
  '/anthropic/v1/messages': messages('anthropic'),
}

/** Options of `startEmulator`. */
export interface EmulatorOptions {
  /** The provider's clock (ms); TTLs expire by it. Default `Date.now`. */
  now?: () => number
  /** Slots of the llama.cpp route (`-np`); default 1. */
  slots?: number
}

/**
 * A loopback provider speaking Chat Completions and Messages, one path per provider (`ROUTES`): each request
 * is rendered as the model sees it, checked against that provider's wire (fields another provider
 * documents are problems), looked up in a cache that follows the provider's documented rules
 * (`providerCache`: breakpoints, lookback, minimum, units, TTL, routing; one cache per model) and answered as the offline
 * `scripted-echo` model would, with the cache read (and, on Messages, the cache write) in the usage, and on
 * Anthropic's route with the cache diagnostics a request asks for (`CacheDiagnostics`). One
 * emulator serves one conversation: the ideal of each request is measured against the one before.
 */
export async function startEmulator(models: readonly string[], options: EmulatorOptions = {}) {
  const now = options.now ?? Date.now
  const caches = new Map<string, ProviderCache>()
  const ledger: LedgerEntry[] = []
  /** Every request body as it arrived (answered or refused), with its path and its `anthropic-beta` header. */
  const received: { path: string; body: string; beta?: string }[] = []
  const problems: string[] = []
  const diagnostics = new CacheDiagnostics()
  let responses = 0
  let previous: RenderedPrompt | undefined

  const answer = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const path = new URL(req.url ?? '/', 'http://emulator').pathname
    const beta = req.headers['anthropic-beta']
    received.push({ path, body: raw, ...typeof beta === 'string' && { beta } })
    const route = req.method === 'POST' ? ROUTES[path] : undefined
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
    const wrongDiagnostics = route.wire === 'messages' ? CacheDiagnostics.problem(body as Record<string, any>, route.profile) : undefined
    if (wrongDiagnostics) read.problems.push(`messages api: ${wrongDiagnostics}`)
    if (read.problems.length) {
      problems.push(...read.problems)
      return refuse(res, 400, read.problems.join('; '))
    }
    const { prompt } = read
    // a provider caches per model: a request for another model reads nothing the first one wrote
    const cacheKey = `${route.profile} ${String((body as { model?: unknown }).model)}`
    let cache = caches.get(cacheKey)
    if (!cache) caches.set(cacheKey, cache = providerCache(route.profile, options.slots))
    const { cached: cachedTokens, written } = cache.lookupAndStore(prompt, now())
    const idealTokens = cache.servable(Math.min(idealPrefixChars(previous, prompt, read.announcesToolChanges ? 'messages' : route.ideal), prompt.text.length), prompt)
    const reply = echoReply(read.turns)
    const usage = {
      promptTokens: tokensOf(prompt.text.length),
      cachedTokens,
      writtenTokens: written,
      outputTokens: tokensOf(reply.text.length + (reply.call ? reply.call.name.length + reply.call.arguments.length : 0)) || 1,
    }
    ledger.push({
      wire: route.wire, profile: route.profile, promptTokens: usage.promptTokens, cachedTokens, writtenTokens: written, outputTokens: usage.outputTokens, idealTokens, marks: prompt.marks.length, added: addedTools(previous, prompt), compaction: isCompaction(read.turns),
    })
    previous = prompt
    const id = `msg_emu_${String(++responses).padStart(4, '0')}`
    const verdict = route.wire === 'messages' ? diagnostics.answer(body as Record<string, any>, prompt.text, id) : undefined
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.end(route.stream(reply, (body as { model: string }).model, usage, { id, ...verdict !== undefined && { diagnostics: verdict } }))
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
    received,
    problems,
    /**
     * A server-side eviction: every cache entry of every route is gone, and so is every request the cache
     * diagnostics stored (the next request naming one hears `previous_message_not_found`).
     */
    evict() {
      caches.clear()
      diagnostics.evict()
    },
    /** The next Messages response that answers a request with `diagnostics` carries `value` as its `diagnostics` (a reason DSH does not know, a pending one). */
    forceDiagnostics(value: unknown) {
      diagnostics.force(value)
    },
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
