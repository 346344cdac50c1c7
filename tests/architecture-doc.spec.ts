import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

// docs/architecture.md prints the export-surface figures of `npm run -s surface`; a change to an index must
// come with a change to the page (and its 中文 companion), or this fails with the figures to paste.

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOCS = ['docs/architecture.md', 'docs/architecture.zh.md']

/** The text between the surface markers of a doc, without its code fence. */
function printedSurface(path: string): string | undefined {
  const text = readFileSync(join(ROOT, path), 'utf8')
  const block = /<!-- surface:start -->\n```text\n([\s\S]*?)```\n<!-- surface:end -->/.exec(text)
  return block?.[1]
}

describe('the architecture doc', () => {
  // the script builds one TypeScript program over every package: seconds alone, longer on a busy machine
  it('prints what the export-surface script prints, in both languages', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, '.ci/export-surface.mjs')], { cwd: ROOT })
    expect(stdout).toMatch(/^package\s+entry\s+exported/)
    for (const path of DOCS) {
      expect(printedSurface(path), `${path}: the block between <!-- surface:start --> and <!-- surface:end --> must be the output of \`npm run -s surface\``).toBe(stdout)
    }
  }, 180_000)

  it('names every workspace package in its package table', () => {
    const build: { references: { path: string }[] } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8'))
    for (const path of DOCS) {
      const text = readFileSync(join(ROOT, path), 'utf8')
      for (const { path: folder } of build.references) {
        const name: string = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')).name
        expect(text, `${path} does not list ${name} (${folder})`).toContain(`| \`${name}\` (${folder}) |`)
      }
    }
  })
})
