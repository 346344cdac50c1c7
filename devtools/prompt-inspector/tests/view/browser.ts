import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'

/** Debian's headless Chromium, or the binary `DSH_TEST_CHROMIUM` names. */
export const CHROMIUM = process.env.DSH_TEST_CHROMIUM || '/usr/bin/chromium'

/** Where browser tests leave what a person may want to look at (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url))

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

/** Starts the browser; fails with the way to get one when it is missing. */
export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium, as .ci/run does) or set DSH_TEST_CHROMIUM`)
  }
  await mkdir(ARTIFACTS, { recursive: true })
  return puppeteer.launch({ executablePath: CHROMIUM, args: ARGS })
}

/** What a page did while loading: console errors, uncaught errors, and every request other than the page itself. */
export interface PageWatch {
  errors: string[]
  requests: string[]
}

/** Opens `file` from file:// in a fresh page and waits until its script says it has drawn. */
export async function openPage(browser: Browser, file: string, viewport = { width: 1400, height: 900 }): Promise<{ page: Page; watch: PageWatch; loadMs: number }> {
  const page = await browser.newPage()
  await page.setViewport(viewport)
  const url = pathToFileURL(file).href
  const watch: PageWatch = { errors: [], requests: [] }
  page.on('console', (message) => { if (message.type() === 'error') watch.errors.push(message.text()) })
  page.on('pageerror', (error) => { watch.errors.push(String(error)) })
  page.on('request', (request) => { if (request.url() !== url) watch.requests.push(request.url()) })
  const started = Date.now()
  await page.goto(url, { waitUntil: 'load' })
  await page.waitForSelector('body[data-ready]', { timeout: 10_000 })
  return { page, watch, loadMs: Date.now() - started }
}
