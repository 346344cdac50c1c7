import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = new URL('..', import.meta.url).pathname
/** What a front door's `src/` may import of DSH: the harness it stands on, the boot glue, the shared core. */
const ALLOWED = new Set(['dsh-harness', 'dsh-app-boot', 'dsh-core'])
/**
 * Files that may import more, each with the packages it may use. Only on the harness branch of issue 30: the
 * ACP door's per-session MCP wiring moves into `ctx.mcp` (dsh-tools-mcp) at the merge, and this entry goes.
 */
const EXCEPTIONS: Record<string, string[]> = {}

/** The DSH packages a source file imports or re-exports (static `from '…'` and dynamic `import('…')`), by name. */
export function dshImports(text: string): string[] {
  const names = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](dsh-[^'"/]+)(?:\/[^'"]*)?['"]/gm)].map((match) => match[1]!)
  return [...new Set(names)].sort()
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.[cm]?tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length))
}

describe('front-door imports', () => {
  const apps = readdirSync(join(root, 'apps'))
  const files = apps.flatMap((app) => sourceFiles(`apps/${app}/src`))

  it('finds the door sources and reads every import form', () => {
    expect(apps.sort()).toEqual(['acp-demo', 'stdio-demo'])
    expect(files.length).toBeGreaterThan(20)
    expect(dshImports("import x from 'dsh-tools'\nexport { y } from \"dsh-llm/http\"\nconst z = import('dsh-session')\nimport 'dsh-side'"))
      .toEqual(['dsh-llm', 'dsh-session', 'dsh-side', 'dsh-tools'])
  })

  it('lets apps/*/src import no DSH package but dsh-harness, dsh-app-boot and dsh-core', () => {
    const offending = files.flatMap((file) => {
      const allowed = new Set([...ALLOWED, ...EXCEPTIONS[file] ?? []])
      return dshImports(readFileSync(join(root, file), 'utf8')).filter((name) => !allowed.has(name)).map((name) => `${file}: ${name}`)
    })
    expect(offending).toEqual([])
  })
})
