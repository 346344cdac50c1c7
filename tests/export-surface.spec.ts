import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
// @ts-expect-error a plain .mjs script without declarations
import { apiTableNames, exportSurface } from '../.ci/export-surface.mjs'

// The counting rules of `npm run -s surface` (.ci/export-surface.mjs), on a small workspace written here:
// only source imports from another package count as use, and only a README's `## API` table documents.

const root = mkdtempSync(join(tmpdir(), 'dsh-surface-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function write(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
}

const entry = (file: string) => ({ source: `./src/${file}.ts`, types: `./dist/${file}.d.ts`, default: `./dist/${file}.js` })
write('tsconfig.build.json', JSON.stringify({ files: [], references: [{ path: 'packages/a' }, { path: 'packages/b' }, { path: 'packages/kit-testing' }, { path: 'tools/cli' }] }))
write('packages/a/package.json', JSON.stringify({ name: 'a', exports: { '.': entry('index'), './testing': entry('testing/index') } }))
write('packages/a/src/index.ts', 'export const used = 1\nexport const byTests = 2\nexport const inTable = 3\nexport const inProse = 4\nexport const byKit = 5\n')
write('packages/a/src/testing/index.ts', 'export const kitUsed = 1\nexport const kitInTable = 2\nexport const kitByTests = 3\n')
write('packages/a/README.md', [
  '# a', '', 'Prose names `inProse` and `kitByTests`.', '',
  '## API', '', '| Name | What |', '|---|---|', '| `inTable(x)` | a function |', '| `kitInTable`, `other` | the kit |', '',
  '## Later', '', '| `byTests` | a table outside the API section |', '',
].join('\n'))
write('packages/b/package.json', JSON.stringify({ name: 'b', exports: { '.': entry('index') } }))
write('packages/b/src/index.ts', "import { used } from 'a'\nimport { kitUsed } from 'a/testing'\nexport const b = used + kitUsed\n")
write('packages/b/tests/b.spec.ts', "import { byTests, inProse } from 'a'\nimport { kitByTests } from 'a/testing'\n")
write('packages/kit-testing/package.json', JSON.stringify({ name: 'kit-testing', exports: { '.': entry('index') } }))
write('packages/kit-testing/src/index.ts', "import { byKit } from 'a'\nexport const kit = byKit\n")
write('tools/cli/package.json', JSON.stringify({ name: 'cli', bin: { cli: './bin/cli' } }))

describe('the export-surface script', () => {
  // the script builds one TypeScript program: seconds alone, longer on a busy machine
  it('counts as used only what another package\'s source imports, and as documented only what an API table lists', { timeout: 120_000 }, () => {
    const [a, , kit, cli] = exportSurface(root)
    const [main, testing] = a.entries
    expect(main).toMatchObject({ subpath: '.', testKit: false, exported: 5, usedOutside: 1, documented: 1 })
    // a test's import, a test kit's import and a name in prose or in another section's table make nothing public
    expect(main.internal).toEqual(['byTests', 'inProse', 'byKit'])
    expect(testing).toMatchObject({ subpath: './testing', testKit: true, exported: 3, usedOutside: 1, documented: 1 })
    expect(testing.internal).toEqual(['kitByTests'])
    expect(kit.entries[0]).toMatchObject({ testKit: true, exported: 1, usedOutside: 0 })
    expect(cli.entries).toEqual([expect.objectContaining({ subpath: '(none)', exported: 0 })])
  })

  it('reads the names that start a backticked span in the first column of the tables under ## API', () => {
    const readme = ['## API', '', '| Name | Entry |', '|---|---|', '| `Agent.prompt()`, `createAgent(options)` | `./x` |', '| `a|b` and `C` | y |', '', '## Config', '| `later` |'].join('\n')
    expect([...apiTableNames(readme)].sort()).toEqual(['Agent', 'C', 'a', 'createAgent'])
  })
})
