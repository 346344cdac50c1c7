import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EXAMPLES } from './run.ts'

const ROOT = join(EXAMPLES, '..')
const readmes = ['README.md', ...['packages', 'apps', 'devtools'].flatMap((group) => readdirSync(join(ROOT, group))
  .map((name) => `${group}/${name}/README.md`).filter((path) => existsSync(join(ROOT, path))))]

/** Every ```yaml block of a README, with the example file the lines just above it name (if any). */
function yamlBlocks(path: string): { line: number; text: string; names: string | undefined }[] {
  const lines = readFileSync(join(ROOT, path), 'utf8').split('\n')
  const blocks = []
  for (let index = 0; index < lines.length; index++) {
    if (lines[index] !== '```yaml') continue
    const end = lines.indexOf('```', index + 1)
    const above = lines.slice(Math.max(0, index - 3), index).join('\n')
    blocks.push({ line: index + 1, text: `${lines.slice(index + 1, end).join('\n')}\n`, names: /examples\/([\w.-]+\.yml)/.exec(above)?.[1] })
    index = end
  }
  return blocks
}

const examples = readdirSync(EXAMPLES).filter((name) => name.endsWith('.yml'))

describe('README app files are the files under examples/ (which the other specs boot)', () => {
  it.each(readmes)('%s: every yaml block names its file in examples/ just above it and shows it byte for byte', (path) => {
    for (const block of yamlBlocks(path)) {
      const where = `${path}:${block.line}`
      expect(block.names, `${where}: name the example file (examples/<name>.yml) in the three lines above the block`).toBeDefined()
      expect(examples, `${where}: examples/${block.names} does not exist`).toContain(block.names)
      expect(block.text, `${where}: the block differs from examples/${block.names}`).toBe(readFileSync(join(EXAMPLES, block.names!), 'utf8'))
    }
  })

  it('shows every example file in some README', () => {
    const shown = new Set(readmes.flatMap((path) => yamlBlocks(path).map((block) => block.names)))
    expect(examples.filter((name) => !shown.has(name)).map((name) => relative(ROOT, join(EXAMPLES, name)))).toEqual([])
  })
})
