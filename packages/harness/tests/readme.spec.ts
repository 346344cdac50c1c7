import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import * as spine from '../src/index.ts'

describe('README', () => {
  it('names exactly the values the package exports', async () => {
    const text = await readFile(new URL('../README.md', import.meta.url), 'utf8')
    const line = /^Default export: the plugin\. Named values: (.+?); type/m.exec(text)
    expect(line).not.toBeNull()
    const named = [...line![1]!.matchAll(/`(\w+)`/g)].map((match) => match[1]).sort()
    expect(named).toEqual(Object.keys(spine).filter((key) => key !== 'default').sort())
    expect(spine.default).toMatchObject({ name: 'harness', Config: spine.Config })
  })
})
