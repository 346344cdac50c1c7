import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../../src/run.ts'
import { tempDir } from '../setup.ts'
import { ARTIFACTS, launch, openPage, type PageWatch } from './browser.ts'
import { figuresFromLog, readEvents } from './expected.ts'
import { HOSTILE_PROMPT, NOTES_SECTION, recordRichSession } from './record.ts'
import { writeLongSession } from './synthetic.ts'

let browser: Browser
beforeAll(async () => { browser = await launch() }, 60_000)
afterAll(async () => { await browser?.close() })

const num = (value: number) => value.toLocaleString('en-US')
const text = (page: Page, selector: string) => page.$eval(selector, (node) => node.textContent)

async function writePage(session: string, dir: string): Promise<string> {
  const out = join(dir, 'page.html')
  const result = await run(['view', session, '--out', out])
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  return out
}

describe('the page of a recorded session, in Chromium', () => {
  let page: Page
  let watch: PageWatch
  let events: any[]
  beforeAll(async () => {
    const { file, root } = await recordRichSession()
    events = await readEvents(file)
    ;({ page, watch } = await openPage(browser, await writePage(file, root)))
  }, 60_000)

  it('loads from file:// with no console error and no request of any kind', () => {
    expect(watch.errors).toEqual([])
    expect(watch.requests).toEqual([])
  })

  it('shows the summary figures computed from the log', async () => {
    const expected = figuresFromLog(events)
    const figure = (key: string) => text(page, `[data-figure="${key}"] .value`)
    expect(await figure('models')).toBe(expected.models.join(', '))
    expect(await figure('requests')).toBe(num(expected.requests))
    expect(await figure('cached-share')).toBe(`${(expected.cachedShare! * 100).toFixed(1)}%`)
    expect(await figure('input-tokens')).toBe(num(expected.input))
    expect(await figure('uncached-tokens')).toBe(num(expected.uncached))
    expect(await figure('header-changes')).toBe(num(expected.headerChanges))
    expect(await figure('tools-added')).toBe(num(expected.toolsAdded))
    expect(await figure('tools-removed')).toBe(num(expected.toolsRemoved))
    expect(await figure('compactions')).toBe(num(expected.compactions))
    expect(await figure('failed-turns')).toBe(num(expected.failedTurns))
    expect(await text(page, '[data-figure="requests"] .label')).toBe(`requests in ${expected.turns} turns`)
  })

  it('opens a break with its first differing byte and the section that holds it', async () => {
    const logged = events.find((event) => event.type === 'prompt-cache/break' && event.data.reason === 'system_changed')
    const header = events.filter((event) => event.type === 'request/header' && event.seq < logged.seq).at(-2).data.header
    const expectedOffset = Buffer.byteLength(JSON.stringify(header.tools)) + 1 + logged.data.offset
    // the row of turn 4 carries the break button
    const row = await page.$$eval('.row', (rows) => rows.map((row) => [row.querySelector('.turn')!.textContent, row.querySelector('button.break')?.getAttribute('data-break') ?? null]))
    const button = row.find(([turn]) => turn === '4.1')![1]
    expect(button).not.toBeNull()
    await page.click(`.row button.break[data-break="${button}"]`)
    expect(await text(page, '#detail [data-field="reason"]')).toBe('system_changed')
    expect(await text(page, '#detail [data-field="offset"]')).toBe(`${num(expectedOffset)} of the prefix`)
    expect(await text(page, '#detail [data-field="section"]')).toBe(logged.data.section)
    expect(logged.data.section).toBe('deployment:notes')
    await page.screenshot({ path: join(ARTIFACTS, 'view-break.png') })
  })

  it('counts header changes from the same breaks the list and the rows show', async () => {
    const card = Number(await text(page, '[data-figure="header-changes"] .value'))
    const listed = await page.$$eval('#breaks-list button', (buttons) => buttons.map((button) => [button.textContent, button.getAttribute('data-header-changed')]))
    expect(card).toBe(listed.filter(([, changed]) => changed === '1').length)
    expect(card).toBe(figuresFromLog(events).headerChanges)
    // the resume lost beta and the notes section: a header change, counted, and said why
    const resumed = listed.find(([label]) => /header change at resume/.test(label!))
    expect(resumed?.[1]).toBe('1')
    const index = await page.$$eval('#breaks-list button', (buttons) => buttons.findIndex((button) => /at resume/.test(button.textContent!)))
    await page.click(`#breaks-list button:nth-of-type(${index + 1})`)
    expect(await text(page, '#detail [data-field="explanation"]')).toBe('resumed with a different setup: 1 tool removed (beta); the system prompt changed')
  })

  it('shows on each turn\'s row the user\'s text and the first line of the answer', async () => {
    const said = await page.$$eval('.row', (rows) => rows.map((row) => [row.querySelector('.turn')!.textContent, row.querySelector('.said .asked')?.textContent ?? null, row.querySelector('.said .answer')?.textContent ?? null]))
    const prompts = events.filter((event) => event.type === 'user/message')
    for (const turn of [3, 4]) {
      const asked = prompts.find((event) => event.data.turn === turn).data.text
      const answer = events.find((event) => event.type === 'assistant/message' && event.data.turn === turn).data.text.split('\n')[0]
      expect(said.find(([at]) => at === `${turn}.1`)).toEqual([`${turn}.1`, `> ${asked}`, answer])
    }
  })

  it('opens a request with the exact tools and system bytes it sent', async () => {
    const header = events.filter((event) => event.type === 'request/header' && event.data.turn <= 5).at(-1).data.header
    const turn5 = await page.$$eval('.row', (rows) => rows.find((row) => row.querySelector('.turn')!.textContent === '5.1')!.getAttribute('data-request'))
    await page.click(`.row[data-request="${turn5}"]`)
    expect(await text(page, '#detail [data-field="tools"]')).toBe(JSON.stringify(header.tools))
    expect(await text(page, '#detail [data-field="system"]')).toBe(header.system)
  })

  it('shows prompts and sections holding </style> and <script> as text, and runs none of it', async () => {
    expect(await text(page, '#detail [data-field="prompt"]')).toBe(HOSTILE_PROMPT)
    expect(await text(page, '#detail [data-field="system"]')).toContain(NOTES_SECTION)
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined()
    expect(await page.$$eval('img', (nodes) => nodes.length)).toBe(0)
    expect(await page.$$eval('script', (nodes) => nodes.length)).toBe(2) // the data and the page's own script
    expect(await page.$$eval('style', (nodes) => nodes.length)).toBe(1)
  })

  it('writes a screenshot of the session for a person to look at', async () => {
    const path = join(ARTIFACTS, 'view-session.png')
    await page.screenshot({ path })
    expect((await stat(path)).size).toBeGreaterThan(10_000)
  })
})

describe('a 10,000-request session', () => {
  const REQUESTS = 10_000
  let out: string
  beforeAll(async () => {
    const dir = await tempDir()
    const session = join(dir, 'long.jsonl')
    await writeLongSession(session, { requests: REQUESTS, tools: 40, changeEvery: 1000 })
    out = await writePage(session, dir)
  }, 60_000)

  it('fits in a few megabytes, every header stored once', async () => {
    const { size } = await stat(out)
    expect(size).toBeLessThan(3_000_000)
  })

  it('renders in under 2 s and draws only the rows in view', async () => {
    // the machine is shared: the best of three loads (time from navigation start to drawn) is the page's own cost
    const times: number[] = []
    let opened: Awaited<ReturnType<typeof openPage>> | undefined
    for (let round = 0; round < 3; round++) {
      await opened?.page.close()
      opened = await openPage(browser, out)
      expect(opened.watch.errors).toEqual([])
      times.push(Number(await opened.page.$eval('body', (body) => body.dataset.ready)))
    }
    const page = opened!.page
    console.log(`10,000-request page: ${(await stat(out)).size} bytes, drawn ${times.map((time) => time.toFixed(0)).join(' / ')} ms after navigation start`)
    expect(Math.min(...times)).toBeLessThan(2000)
    expect(await text(page, '[data-figure="requests"] .value')).toBe(num(REQUESTS))
    expect(await page.$$eval('.row', (rows) => rows.length)).toBeLessThan(100)
    // scrolled to the end, the last request is drawn
    await page.$eval('#viewport', (viewport) => { viewport.scrollTop = viewport.scrollHeight })
    await page.waitForSelector(`.row[data-request="${REQUESTS - 1}"]`, { timeout: 5000 })
    await page.close()
  })
})
