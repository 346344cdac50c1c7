import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Writes `text` as `cordis.yml` (or `fileName`) in a fresh temp folder; returns its path and folder. */
export async function writeApp(text: string, fileName = 'cordis.yml'): Promise<{ file: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-app-boot-'))
  const file = join(dir, fileName)
  await writeFile(file, text)
  return { file, dir }
}

/** Runs `promise` and returns what it rejected with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}
