import { mkdir, open, readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { App, writeApp } from './setup.ts'
import { mountTmpfs } from './tmpfs.ts'

/** Fills the file system of `folder` to the last byte. */
async function fill(folder: string): Promise<void> {
  const file = await open(join(folder, 'filler'), 'w')
  const chunk = Buffer.alloc(4096, 'f')
  try {
    for (let size = chunk.length; size >= 1; size = Math.floor(size / 2)) {
      for (;;) {
        const { bytesWritten } = await file.write(chunk, 0, size).catch(() => ({ bytesWritten: 0 }))
        if (bytesWritten < size) break
      }
    }
  } finally {
    await file.close()
  }
}

describe('a sessions folder on a full disk', () => {
  it('each failed turn is one error line: no torn-line warning after it, and the log holds only whole lines', async (context) => {
    const { file, dir } = await writeApp('- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./disk/sessions } }\n')
    const disk = join(dir, 'disk')
    await mkdir(disk)
    if (!mountTmpfs(disk, 'size=256k')) context.skip('mounting a file system needs root (CAP_SYS_ADMIN)')
    const app = new App([file])
    app.send('first')
    await app.until(() => app.stdout === 'echo: first\n', 'answering the first line')
    await fill(disk)
    // long lines, so that each turn's first write fills what is left of the log's last block and fails part way
    for (const word of ['second', 'third', 'fourth']) app.send(`${word} ${'x'.repeat(6000)}`)
    const exit = await app.finish()
    expect(exit.stdout).toBe('echo: first\n')
    const lines = exit.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(4)
    for (const line of lines.slice(0, 3)) expect(line).toMatch(/^error: cannot append to \S+\.jsonl: ENOSPC: no space left on device, write; the session refuses further appends$/)
    expect(lines[3]).toBe('3 of 4 turns failed')
    const [log] = (await readdir(join(disk, 'sessions'))).filter((name) => name.endsWith('.jsonl'))
    const text = await readFile(join(disk, 'sessions', log!), 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    for (const line of text.trimEnd().split('\n')) JSON.parse(line)
  })
})
