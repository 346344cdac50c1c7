import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { BIN, tempDir, type BinResult } from '../setup.ts'
import { recordRichSession } from './record.ts'

function bin(args: string[], cwd: string): Promise<BinResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, DSH_LOG_LEVEL: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (error as { code?: number }).code ?? null : 0, stdout, stderr })
    })
  })
}

// The rich session (every kind of break) recorded with a price on its model: the detector logs request/cost.
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }
let file: string
let costs: { billed: number; noCache: number; breakCost?: number; reason?: string }[]
beforeAll(async () => {
  file = (await recordRichSession({ price: PRICE })).file
  const events = (await readFile(file, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line))
  costs = events.filter((event) => event.type === 'request/cost').map((event) => event.data)
})

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0)

describe('dsh-prompt view: money', () => {
  it('sums the session\'s cost records against their no-cache cost, and splits the bill and the break costs by cause', async () => {
    const dir = await tempDir()
    const { code, stdout } = await bin(['view', file, '--out', join(dir, 'page.html'), '--json'], dir)
    expect(code).toBe(0)
    const { money } = JSON.parse(stdout).summary
    expect(costs.length).toBeGreaterThanOrEqual(10)
    expect(money.priced).toBe(costs.length)
    expect(money.billed).toBeCloseTo(sum(costs.map((cost) => cost.billed)), 12)
    expect(money.noCache).toBeCloseTo(sum(costs.map((cost) => cost.noCache)), 12)
    expect(money.billed).toBeLessThan(money.noCache)
    // each break's cost lands on the cause the row shows for it
    for (const reason of ['tools_schema_changed', 'system_changed']) {
      const logged = costs.find((cost) => cost.reason === reason)!
      expect(logged.breakCost).toBeGreaterThan(0)
      expect(money.byCause[reason]).toEqual({ billed: expect.closeTo(logged.billed, 12), breakCost: expect.closeTo(logged.breakCost!, 12) })
    }
    expect(Object.keys(money.byCause)).toEqual(expect.arrayContaining(['first_request', 'resume', 'new_input']))
    expect(sum(Object.values(money.byCause as Record<string, { billed: number }>).map((cause) => cause.billed))).toBeCloseTo(money.billed, 12)
    expect(money.breakCost).toBeCloseTo(sum(costs.map((cost) => cost.breakCost ?? 0)), 12)
  })

  it('says it in one line of the report, and on the page', async () => {
    const dir = await tempDir()
    const { code, stdout } = await bin(['view', file, '--out', join(dir, 'page.html')], dir)
    expect(code).toBe(0)
    const line = stdout.split('\n')[3]!
    expect(line).toMatch(/^\$\d+\.\d{4} billed against \$\d+\.\d{4} with no cache \(saved \$\d+\.\d{4}\), \$\d+\.\d{4} lost to breaks; by cause: first_request \$\d+\.\d{4}, /)
    expect(line).toMatch(/tools_schema_changed \$\d+\.\d{4} \(break \$\d+\.\d{4}\)/)
    expect(await readFile(join(dir, 'page.html'), 'utf8')).toContain('"money":{"priced":')
  })
})
