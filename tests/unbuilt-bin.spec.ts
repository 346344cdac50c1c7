import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const bins = ['packages', 'apps', 'devtools'].flatMap((group) => readdirSync(join(ROOT, group))
  .filter((name) => existsSync(join(ROOT, group, name, 'package.json')))
  .flatMap((name) => Object.entries<string>(JSON.parse(readFileSync(join(ROOT, group, name, 'package.json'), 'utf8')).bin ?? {})
    .map(([bin, path]) => ({ bin, file: join(ROOT, group, name, path) }))))
const scratch = mkdtempSync(join(tmpdir(), 'dsh-unbuilt-'))

describe('a bin before the build', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))

  it('finds the bins', () => expect(bins.map(({ bin }) => bin)).toEqual(expect.arrayContaining(['dsh-prompt', 'dsh-stdio-demo', 'dsh-acp-demo'])))

  for (const { bin, file } of bins) {
    it(`${bin} says how to build instead of a module-not-found stack`, async () => {
      // the bin alone in a package folder that has no dist/ yet, as in a fresh clone
      mkdirSync(join(scratch, bin, 'bin'), { recursive: true })
      cpSync(file, join(scratch, bin, 'bin', bin))
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [join(scratch, bin, 'bin', bin)], (error, stdout, stderr) =>
          resolve({ code: error ? (error.code as number) : 0, stdout, stderr }))
      })
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: `${bin}: not built yet; run \`npm test\`, \`npm start\` or \`node .ci/ensure-build.mjs\` at the repository root\n`,
      })
    })
  }
})
