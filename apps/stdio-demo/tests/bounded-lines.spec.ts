import { describe, expect, it } from 'vitest'
import { appYaml, expectEveryTurnFailed, run, writeApp } from './setup.ts'

const LINE_MAX_BYTES = 4096

describe('list-of-names messages through the bin stay one line of at most 4 KiB', () => {
  it('a toolOrder of 10,000 unknown names fails each turn with one bounded line that counts the names left out', { timeout: 20_000 }, async () => {
    const names = Array.from({ length: 10_000 }, (_, index) => `unknown_tool_${index}`)
    const { file } = await writeApp(appYaml({ toolOrder: [...names, '<unlisted-tools>'] }, [{ name: 'get_time' }]))
    const exit = await run([file], 'hello\nagain\n')
    expectEveryTurnFailed(exit, 2, /^error: toolOrder lists unregistered tools "unknown_tool_0", .*, … and \d+ more; known tools: agent, get_time$/)
    const line = exit.stderr.split('\n')[0]!
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(LINE_MAX_BYTES)
    const shown = (line.match(/"unknown_tool_\d+"/g) ?? []).length
    expect(line).toContain(`… and ${10_000 - shown} more;`)
  })

  it('a permission pattern of 100,000 characters is refused in one bounded line', { timeout: 20_000 }, async () => {
    const pattern = `mcp__fs__${'x'.repeat(100_000)}`
    const { file } = await writeApp(appYaml({ permissions: { deny: [pattern] } }))
    const exit = await run([file], 'hello\n')
    expect(exit.code).toBe(1)
    const lines = exit.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(Buffer.byteLength(lines[0]!)).toBeLessThanOrEqual(LINE_MAX_BYTES)
    expect(lines[0]).toMatch(/permissions\.deny\[0\] is "mcp__fs__x+…" \(100009 characters\), which can never match: .*it has 100009 characters\); the model sees tool "x+…" \(100000 characters\) of MCP server "fs" as "mcp__fs__x{46}_[0-9a-f]{8}": write that$/)
  })
})
