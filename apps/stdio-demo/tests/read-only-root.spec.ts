import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectEveryTurnFailed, run, writeApp } from './setup.ts'
import { mountTmpfs } from './tmpfs.ts'

describe('a persistenceRoot on a read-only file system', () => {
  it('each turn fails with one line saying read-only, naming the folder (not ENOENT … mkdir)', async (context) => {
    const { file, dir } = await writeApp('- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./ro/sessions } }\n')
    const point = join(dir, 'ro')
    await mkdir(point)
    if (!mountTmpfs(point, 'ro,size=64k')) context.skip('mounting a file system needs root (CAP_SYS_ADMIN)')
    const exit = await run([file], 'hi\nagain\n')
    const folder = join(point, 'sessions')
    expectEveryTurnFailed(exit, 2, new RegExp(`^error: cannot append to ${folder}/[0-9a-f-]+\\.jsonl: the sessions folder ${folder} is on a read-only file system `
      + `\\(EROFS: mkdir ${folder}\\); set persistenceRoot to another folder; the session refuses further appends$`))
    expect(exit.stderr).not.toContain('ENOENT')
  })
})
