import type { ServerResponse } from 'node:http'
import type { Plugin } from 'cordis'
import type { LlmAdapter } from 'dsh-llm'
import type { FakeApiKey } from './fake-key.ts'
import type { Loopback } from './loopback.ts'

/** A scripted provider failure: the words the provider says and how the adapter's message shows them. */
export interface WireFailure {
  write(res: ServerResponse): void
  /** Text the error message must contain. */
  shown: string
}

/** What the HTTP contract needs to know about one adapter's wire format. */
export interface HttpWire {
  /** The adapter's package name, as its messages name it (`dsh-llm-openai`). */
  packageName: string
  plugin: Plugin
  /** The adapter built without Cordis (`createOpenAIAdapter`). */
  create(config: any): LlmAdapter
  /** The config with defaults filled in, without Cordis (the package's `resolveConfig`). */
  resolveConfig(config: any): object
  /** Context window of a model entry that sets none. */
  contextWindow: number
  /** A fresh fake key per check. */
  key(): FakeApiKey
  /** The plugin's config serving `models` from the server, with the key in the variable `apiKeyEnv`. */
  config(server: Loopback, apiKeyEnv: string, models: string[]): object
  /** The request path the adapter posts to (`/v1/chat/completions`). */
  path: string
  /** What the adapter counts a stream in: `chunks` or `events`. */
  unit: 'chunks' | 'events'
  /** An HTTP error answer of `status` carrying `message`; `shown` is how the adapter's message quotes it. */
  httpError(status: number, message: string, headers?: Record<string, string>): WireFailure
  /** Stream frames (SSE text) that open a reply and carry `texts` as text deltas, with how many units they are. */
  textFrames(texts: string[]): { frames: string; count: number }
  /** Stream frames that end a text reply `textFrames` opened (stop reason, end of message). */
  endFrames: string
  /** A stream body whose one well-formed unit is followed by a malformed event. */
  malformedBody: string
  /** A complete-looking stream that never says it finished. */
  truncated: WireFailure
  /** A reply whose tool call carries arguments that are not valid JSON. */
  invalidToolCall: WireFailure
  /** A stream that carries a provider error event after some text. */
  errorEvent: WireFailure
  /** A well-formed reply answering `text`. */
  reply(res: ServerResponse, text: string): void
  /** A reply that asks for `calls` (`args` as the raw JSON text streamed), after the text `toolCallText`. */
  toolCalls(res: ServerResponse, calls: { id: string; name: string; args: string }[]): void
  toolCallText: string
  /** When the adapter-level abort check aborts: while waiting for response headers, or mid-stream. */
  abortWhile: 'headers' | 'streaming'
  /** The tool names of a request body, in the order sent. */
  toolNames(body: any): string[]
  /** A baseURL path (relative to the server's origin) and the request path it must lead to. */
  basePath: { baseURL: string; url: string }
  /** Error answers in shapes of the wire's own (other servers, proxies) whose words must still be shown. */
  otherErrorBodies: { title: string; status: number; contentType: string; body: string; shown: string }[]
}
