import { httpAdapterContract } from 'dsh-llm-testing'
import OpenAIProvider from '../src/index.ts'
import { createOpenAIAdapter } from '../src/adapter.ts'
import { resolveConfig } from '../src/config.ts'
import { chunk, sendError, sendStream, textReply, toolCallReply } from './wire-frames.ts'
import { fakeKey } from './setup.ts'

const data = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`

httpAdapterContract('dsh-llm-openai', {
  packageName: 'dsh-llm-openai',
  plugin: OpenAIProvider,
  create: createOpenAIAdapter,
  resolveConfig,
  contextWindow: 128_000,
  key: fakeKey,
  config: (server, apiKeyEnv, models) => ({ baseURL: `${server.origin}/v1`, apiKeyEnv, models }),
  path: '/v1/chat/completions',
  unit: 'chunks',
  httpError: (status, message, headers) => ({ write: (res) => sendError(res, status, message, headers), shown: message }),
  textFrames: (texts) => ({ frames: texts.map((content) => data(chunk({ content }))).join(''), count: texts.length }),
  endFrames: `${data(chunk({}, 'stop'))}data: [DONE]\n\n`,
  malformedBody: `${data(chunk({ content: 'ok' }))}data: {"choices":[{"delta":{"content":"x"}\n\n`,
  truncated: { write: (res) => sendStream(res, [chunk({ content: 'half an ans' })]), shown: 'without a finish_reason' },
  invalidToolCall: {
    write: (res) => sendStream(res, toolCallReply([{ id: 'call_1', name: 'read', arguments: '{"input": "a' }])),
    shown: 'tool call "read" (id call_1) has arguments that are not valid JSON',
  },
  errorEvent: {
    write(res) {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(data(chunk({ content: 'ok' })))
      res.end(data({ error: { message: 'upstream overloaded', type: 'server_error' } }))
    },
    shown: 'reported an error mid-stream for model "test-model": upstream overloaded',
  },
  reply: (res, text) => sendStream(res, textReply(text)),
  toolCalls: (res, calls) => sendStream(res, toolCallReply(calls.map(({ id, name, args }) => ({ id, name, arguments: args })))),
  toolCallText: '',
  abortWhile: 'headers',
  toolNames: (body) => body.tools.map((entry: { function: { name: string } }) => entry.function.name),
  basePath: { baseURL: '/v1/', url: '/v1/chat/completions' },
  otherErrorBodies: [{
    title: 'reads a top-level message from servers that do not nest it under error (vLLM)', status: 400, contentType: 'application/json',
    body: JSON.stringify({ object: 'error', message: 'maximum context length is 4096 tokens', type: 'BadRequestError' }),
    shown: 'maximum context length is 4096 tokens',
  }],
})
