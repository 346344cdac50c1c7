import { httpAdapterContract } from 'dsh-llm-testing'
import AnthropicProvider from '../src/index.ts'
import { createAnthropicAdapter } from '../src/adapter.ts'
import { resolveConfig } from '../src/config.ts'
import { frame, messageEnd, messageStart, reply, sendError, sendEvents } from './wire-frames.ts'
import { fakeKey } from './setup.ts'

const textStart = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }
const textDelta = (text: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })
const ERROR_TYPES: Record<number, string> = { 401: 'authentication_error', 429: 'rate_limit_error' }

httpAdapterContract('dsh-llm-anthropic', {
  packageName: 'dsh-llm-anthropic',
  plugin: AnthropicProvider,
  create: createAnthropicAdapter,
  resolveConfig,
  contextWindow: 200_000,
  key: fakeKey,
  config: (server, apiKeyEnv, models) => ({ baseURL: server.origin, apiKeyEnv, models }),
  path: '/v1/messages',
  unit: 'events',
  httpError(status, message, headers) {
    const type = ERROR_TYPES[status] ?? 'api_error'
    return { write: (res) => sendError(res, status, type, message, headers), shown: `${type}: ${message}` }
  },
  textFrames: (texts) => ({
    frames: frame(messageStart()) + frame(textStart) + texts.map((text) => frame(textDelta(text))).join(''),
    count: 2 + texts.length,
  }),
  endFrames: frame({ type: 'content_block_stop', index: 0 }) + messageEnd('end_turn').map(frame).join(''),
  malformedBody: `${frame(messageStart())}event: content_block_delta\ndata: {"type":"content_block_delta","index":0,\n\n`,
  truncated: { write: (res) => sendEvents(res, [messageStart(), textStart, textDelta('half an ans')]), shown: 'without message_stop' },
  invalidToolCall: {
    write: (res) => sendEvents(res, reply({ calls: [{ id: 'toolu_1', name: 'read', input: '{"input": "a' }] })),
    shown: 'tool call "read" (id toolu_1) has input that is not valid JSON',
  },
  errorEvent: {
    write: (res) => sendEvents(res, [
      messageStart(), textStart, textDelta('ok'),
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]),
    shown: 'reported an error mid-stream for model "test-model": overloaded_error: Overloaded',
  },
  reply: (res, text) => sendEvents(res, reply({ text })),
  toolCalls: (res, calls) => sendEvents(res, reply({ text: 'Let me look.', calls: calls.map(({ id, name, args }) => ({ id, name, input: args })) })),
  toolCallText: 'Let me look.',
  abortWhile: 'streaming',
  toolNames: (body) => body.tools.map((entry: { name: string }) => entry.name),
  basePath: { baseURL: '/anthropic', url: '/anthropic/v1/messages' },
  otherErrorBodies: [
    { title: 'shows a body that is not JSON', status: 502, contentType: 'text/plain', body: 'Bad Gateway from the proxy', shown: 'Bad Gateway from the proxy' },
  ],
})
