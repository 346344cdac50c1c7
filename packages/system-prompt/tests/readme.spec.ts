import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import * as api from '../src/bytes.ts'

const README = new URL('../README.md', import.meta.url)

/** The code block under `### <heading>` of the README, as a reader would copy it. */
async function snippet(heading: string): Promise<string> {
  const text = await readFile(README, 'utf8')
  const match = new RegExp(`### ${heading}\\n+\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(text)
  if (!match) throw new Error(`README.md: no ts block under "${heading}"`)
  return match[1]!
}

describe('README', () => {
  it('"Prefix differences": the snippet gives the answer its comment shows', async () => {
    const code = await snippet('Prefix differences')
    const [, names] = /^import \{ ([^}]+) \} from 'dsh-system-prompt\/bytes'$/m.exec(code)!
    const [, shown] = /^\/\/ → (.+)$/m.exec(code)!
    const body = code.replace(/^import .*$/m, '').replace(/^\/\/ → .*$/m, '').trim().split('\n')
    const last = body.pop()!
    const run = new Function('api', `const { ${names} } = api\n${body.join('\n')}\nreturn ${last}`)
    expect(run(api)).toEqual(new Function(`return (${shown})`)())
  })
})
