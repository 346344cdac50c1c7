import { readFile, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../../src/run.ts'
import { launch, openPage } from './browser.ts'
import { readEvents } from './expected.ts'
import { describeScreenshotSession, JOINING_TOOL, PROMPTS_AFTER, PROMPTS_BEFORE, recordScreenshotSession, SCREENSHOT_DESCRIPTION, SCREENSHOT_PNG } from './screenshot.ts'

/** Set to rewrite docs/viewer.png and docs/viewer-session.txt from the session this spec records. */
const WRITE = process.env.DSH_WRITE_SCREENSHOT === '1'
const REGENERATE = 'regenerate with DSH_WRITE_SCREENSHOT=1 npx vitest run devtools/prompt-inspector/tests/view/screenshot.spec.ts'

let browser: Browser
let page: Page
let events: any[]
beforeAll(async () => {
  browser = await launch()
  const log = await recordScreenshotSession()
  events = await readEvents(log)
  const out = join(dirname(log), 'page.html')
  const result = await run(['view', log, '--out', out])
  expect(result.code).toBe(0)
  ;({ page } = await openPage(browser, out, { width: 1600, height: 720 }))
}, 60_000)
afterAll(async () => { await browser?.close() })

const text = (selector: string) => page.$eval(selector, (node) => node.textContent)
const rows = () => page.$$eval('.row', (nodes) => nodes.map((node) => ({
  turn: node.querySelector('.turn')!.textContent!,
  tokens: node.querySelector('.tokens')!.textContent!,
  reason: node.querySelector('.reason')!.textContent!,
  broke: node.querySelector('button.break') !== null,
})))
/** A row's cached share from its `input / cached` cell. */
const share = (tokens: string) => {
  const [input, cached] = tokens.split(' / ').map((part) => Number(part.replace(/,/g, '')))
  return cached! / input!
}

describe('the README screenshot: a real offline session in the viewer', () => {
  it('the stored description matches the app file and prompts the generator uses', async () => {
    const expected = await describeScreenshotSession()
    if (WRITE) await writeFile(SCREENSHOT_DESCRIPTION, expected)
    const stored = await readFile(SCREENSHOT_DESCRIPTION, 'utf8').catch(() => '(missing)')
    expect(stored, `docs/viewer-session.txt is stale: ${REGENERATE}`).toBe(expected)
  })

  it('records every prompt as a turn, with usage the offline model marked emulated', () => {
    const prompts = events.filter((event) => event.type === 'user/message').map((event) => event.data.text)
    expect(prompts).toEqual([...PROMPTS_BEFORE, ...PROMPTS_AFTER])
    const usages = events.filter((event) => event.type === 'assistant/message').map((event) => event.data.usage)
    expect(usages.length).toBeGreaterThan(0)
    expect(usages.every((usage) => usage.emulated === true)).toBe(true)
  })

  it('labels the cached share emulated', async () => {
    expect(await text('[data-figure="cached-share"] .label')).toMatch(/^cached \(emulated by the offline model/)
    expect(Number.parseFloat((await text('[data-figure="cached-share"] .value'))!)).toBeGreaterThan(50)
  })

  it('shows the rows after each cold request mostly cached, the last turns above 90%', async () => {
    const drawn = await rows()
    expect(drawn.length).toBeGreaterThan(PROMPTS_BEFORE.length + PROMPTS_AFTER.length)
    expect(share(drawn[0]!.tokens)).toBe(0)
    const joinedAt = drawn.findIndex((row) => row.broke)
    for (const [index, row] of drawn.entries()) {
      if (index === 0 || index === joinedAt) continue
      expect(share(row.tokens), `row ${row.turn}: ${row.tokens}`).toBeGreaterThan(0.7)
    }
    for (const row of drawn.slice(-3)) expect(share(row.tokens), `row ${row.turn}: ${row.tokens}`).toBeGreaterThan(0.9)
  })

  it('marks the tool joining and explains the break it causes on the next request', async () => {
    expect(await page.$$eval('.marker.tools .what', (nodes) => nodes.map((node) => node.textContent))).toEqual([`tools added: ${JOINING_TOOL}`])
    const drawn = await rows()
    const broken = drawn.filter((row) => row.broke)
    expect(broken.map((row) => row.turn)).toEqual([`${PROMPTS_BEFORE.length + 1}.1`])
    expect(share(broken[0]!.tokens)).toBeLessThan(0.5)
    // the picture shows the break's detail open
    await page.click('.row button.break')
    expect(await text('#detail [data-field="explanation"]')).toContain(JOINING_TOOL)
    // the app file lowers the detector's least fall, so the detector logs this break too and names its reason
    expect(await text('[data-figure="breaks"] .label')).toBe('breaks (1 by the detector)')
    const logged = events.filter((event) => event.type === 'prompt-cache/break').map((event) => event.data.reason)
    expect(logged).toEqual(['tools_schema_changed'])
  })

  it('shows what was said on each turn\'s row, under the `said` column head and wide enough to read', async () => {
    const head = await page.$$eval('.columns span', (spans) => spans.find((span) => span.textContent === 'said')!.getBoundingClientRect().left)
    const cells = await page.$$eval('.row .said', (nodes) => nodes.map((node) => ({ left: node.getBoundingClientRect().left, width: node.getBoundingClientRect().width, text: node.textContent })))
    expect(cells[0]!.text).toBe(`> ${PROMPTS_BEFORE[0]}echo: ${PROMPTS_BEFORE[0]}`)
    for (const cell of cells) {
      expect(cell.left).toBe(head)
      expect(cell.width).toBeGreaterThan(200)
    }
  })

  it(WRITE ? 'writes docs/viewer.png' : 'has a docs/viewer.png (DSH_WRITE_SCREENSHOT=1 rewrites it)', async () => {
    if (WRITE) await page.screenshot({ path: SCREENSHOT_PNG })
    expect((await stat(SCREENSHOT_PNG)).size).toBeGreaterThan(10_000)
  })
})
