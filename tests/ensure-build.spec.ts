import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { staleBuilds } from '../.ci/ensure-build.mjs'

// The check `npm start` / `npm test` run before deciding to call `tsc -b`, on a small fake workspace.
let root: string
const at = (seconds: number) => new Date(1_700_000_000_000 + seconds * 1000)
function file(path: string, seconds: number) {
  mkdirSync(join(root, path, '..'), { recursive: true })
  writeFileSync(join(root, path), '')
  utimesSync(join(root, path), at(seconds), at(seconds))
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dsh-ensure-build-'))
  writeFileSync(join(root, 'tsconfig.build.json'), JSON.stringify({ files: [], references: [{ path: 'packages/a' }, { path: 'apps/b' }] }))
  utimesSync(join(root, 'tsconfig.build.json'), at(0), at(0))
  for (const name of ['tsconfig.base.json', 'tsconfig.package.json', '.ci/bundle.mjs']) file(name, 0)
  for (const folder of ['packages/a', 'apps/b']) {
    file(`${folder}/tsconfig.json`, 0)
    file(`${folder}/package.json`, 0)
    file(`${folder}/src/index.ts`, 1)
    file(`${folder}/src/deep/er/x.ts`, 1)
    for (const dir of ['src/deep/er', 'src/deep', 'src']) utimesSync(join(root, folder, dir), at(1), at(1))
    file(`${folder}/dist/.built`, 2)
  }
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('staleBuilds', () => {
  it('finds nothing to build when every stamp is newer than every input', () => {
    expect(staleBuilds(root)).toEqual([])
  })

  it('finds a package whose dist has no stamp (a fresh clone, or dist/ deleted)', () => {
    rmSync(join(root, 'apps/b/dist'), { recursive: true })
    expect(staleBuilds(root)).toEqual([join(root, 'apps/b')])
  })

  it('finds a package with a source file newer than its stamp, however deep', () => {
    file('packages/a/src/deep/er/x.ts', 3)
    expect(staleBuilds(root)).toEqual([join(root, 'packages/a')])
  })

  it('finds a package whose src/ changed by a deletion (the folder is newer)', () => {
    utimesSync(join(root, 'apps/b/src'), at(3), at(3))
    expect(staleBuilds(root)).toEqual([join(root, 'apps/b')])
  })

  it('finds a package whose own tsconfig.json changed', () => {
    file('apps/b/tsconfig.json', 3)
    expect(staleBuilds(root)).toEqual([join(root, 'apps/b')])
  })

  it('finds a package whose package.json changed (its entry points or inlined dependencies may have)', () => {
    file('packages/a/package.json', 3)
    expect(staleBuilds(root)).toEqual([join(root, 'packages/a')])
  })

  it('finds every package when a shared tsconfig changed', () => {
    file('tsconfig.package.json', 3)
    expect(staleBuilds(root)).toEqual([join(root, 'packages/a'), join(root, 'apps/b')])
  })

  it('ignores folders tsconfig.build.json does not list (the wiring test reports those)', () => {
    file('packages/unlisted/src/index.ts', 3)
    expect(staleBuilds(root)).toEqual([])
  })
})

describe('ensure-build.mjs on this workspace', () => {
  it('prints only on stderr when it builds, so piped `npm start -s` output stays clean', async () => {
    const workspace = fileURLToPath(new URL('..', import.meta.url))
    // a missing stamp makes it run `tsc -b`, which finds the (already built) projects up to date
    rmSync(join(workspace, 'packages', 'system-prompt', 'dist', '.built'))
    const result = await new Promise<{ error: Error | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [join(workspace, '.ci', 'ensure-build.mjs')], (error, stdout, stderr) => resolve({ error, stdout, stderr }))
    })
    expect(result.error).toBeNull()
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^dsh: build done in [\d.]+ s \(1 package\(s\) had changed\)\n$/)
  })
})
