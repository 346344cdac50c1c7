import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { loadMcp, setup, testServer, type TestTool } from './setup.ts'

const PNG = Buffer.alloc(1000, 7).toString('base64')
const WAV = Buffer.alloc(2001, 1).toString('base64')

const tools: TestTool[] = [
  { name: 'texts', reply: { content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }] } },
  { name: 'structured', reply: { content: [], structuredContent: { b: 2, a: [1, 'x'] } } },
  { name: 'both', reply: { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } } },
  { name: 'image', reply: { content: [{ type: 'text', text: 'a chart:' }, { type: 'image', data: PNG, mimeType: 'image/png' }] } },
  { name: 'audio', reply: { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] } },
  { name: 'resource', reply: { content: [{ type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'héllo' } }] } },
  { name: 'blob', reply: { content: [{ type: 'resource', resource: { uri: 'file:///a.bin', blob: Buffer.alloc(10).toString('base64') } }] } },
  { name: 'link', reply: { content: [{ type: 'resource_link', uri: 'file:///big.log', name: 'big.log', mimeType: 'text/plain', size: 123456 }] } },
  { name: 'empty', reply: { content: [] } },
  { name: 'refuses', reply: { content: [{ type: 'text', text: 'no such city' }], isError: true } },
  { name: 'echo', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
]

let ctx: Context
let plugin: Awaited<ReturnType<typeof loadMcp>>
beforeAll(async () => {
  ctx = (await setup()).ctx
  plugin = await loadMcp(ctx, { servers: { content: testServer({ tools }) } })
})
afterAll(() => plugin?.dispose())

const run = (tool: string, args: object = {}) => ctx.tools.execute(`mcp__content__${tool}`, args)

describe('what a call returns to the model', () => {
  it.each([
    ['text blocks, joined with newlines', 'texts', 'first\nsecond'],
    ['structured content without text, as JSON', 'structured', '{"b":2,"a":[1,"x"]}'],
    ['the text when a result carries both', 'both', '{"a":1}'],
    ['an image as a placeholder with type and size', 'image', 'a chart:\n[image image/png, 1000 bytes]'],
    ['audio as a placeholder with type and size', 'audio', '[audio audio/wav, 2001 bytes]'],
    ['an embedded text resource as a placeholder with its UTF-8 size', 'resource', '[resource file:///notes.txt text/plain, 6 bytes]'],
    ['an embedded binary resource as a placeholder with its size', 'blob', '[resource file:///a.bin, 10 bytes]'],
    ['a resource link with its declared size', 'link', '[resource link file:///big.log text/plain, 123456 bytes]'],
    ['no content as an empty text', 'empty', ''],
  ])('gives %s', async (_, tool, output) => {
    expect(await run(tool)).toEqual({ output, isError: false })
  })

  it('makes isError an error result carrying the server\'s text', async () => {
    expect(await run('refuses')).toEqual({ output: 'tool "mcp__content__refuses" failed: no such city', isError: true })
  })

  it('passes the validated arguments under the server\'s own tool name', async () => {
    expect(await run('echo', { city: 'Oslo' })).toEqual({ output: 'echo called with {"city":"Oslo"}', isError: false })
  })

  it('refuses arguments the listed schema rejects, before calling the server', async () => {
    const result = await run('echo', { town: 'Oslo' })
    expect(result.isError).toBe(true)
    expect(result.output).toBe('invalid arguments for tool "mcp__content__echo": arguments must have required property \'city\'')
  })
})
