import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SessionError } from '../src/index.ts'
import { readLines } from '../src/line-reader.ts'
import { chatTurn, setup, tempDir } from './helpers.ts'

afterEach(() => { vi.restoreAllMocks() })

describe('reading logs as lines', () => {
  it('opens a log without ever holding it as one string: no decoded text is longer than a line', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root, durability: 'none' })
    const session = await sessions.create('s')
    for (let turn = 1; turn <= 200; turn++) chatTurn(session, turn)
    await sessions.close('s')
    const size = (await fs.stat(join(root, 's.jsonl'))).size
    const longestLine = Math.max(...(await fs.readFile(join(root, 's.jsonl'), 'utf8')).split('\n').map((line) => line.length))
    const readFile = vi.spyOn(fs, 'readFile')
    const decode = vi.spyOn(Buffer.prototype, 'toString')
    const reopened = await (await setup({ persistenceRoot: root })).sessions.open('s')
    expect(reopened.lastSeq).toBe(session.lastSeq)
    expect(readFile).not.toHaveBeenCalled()
    const longestDecoded = Math.max(...decode.mock.results.map((result) => String(result.value).length))
    expect(longestDecoded).toBeLessThanOrEqual(longestLine)
    expect(longestDecoded * 10).toBeLessThan(size)
  })

  it('splits lines across small chunks, multi-byte characters included, with byte offsets', async () => {
    const path = join(await tempDir(), 'lines.txt')
    const lines = ['a', '日本語のテキスト', '', 'x'.repeat(50), 'ümlaut']
    await fs.writeFile(path, lines.join('\n'))
    const read = []
    for await (const line of readLines(path, { chunkBytes: 3 })) read.push(line)
    expect(read.map((line) => line.text)).toEqual(lines)
    expect(read.map((line) => line.terminated)).toEqual([true, true, true, true, false])
    expect(read.map((line) => line.offset)).toEqual(lines.map((_, i) => Buffer.byteLength(lines.slice(0, i).map((l) => l + '\n').join(''))))
  })

  it('fails on a line over the limit with one message naming the file, the line and the limit', async () => {
    const root = await tempDir()
    const path = join(root, 's.jsonl')
    await fs.writeFile(path, `${'x'.repeat(100)}\n`)
    const error = await (async () => { for await (const _ of readLines(path, { chunkBytes: 16, maxLineBytes: 64 })) { /* read */ } })()
      .then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(SessionError)
    expect((error as SessionError).code).toBe('LINE_TOO_LONG')
    expect((error as SessionError).message).toBe(`${path}, line 1: longer than the limit of 64 bytes per line; the log cannot be opened`)
  })
})
