import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { beforeAll, describe, expect, it } from 'vitest'
import { runBin, tempDir } from '../setup.ts'
import { launch, openPage } from './browser.ts'

let root: string
let parent: string

/**
 * A real session with two side questions, the second asked in the first's child session (a grandchild), recorded by
 * the harness on the offline model (its emulated cache reports usage), in real JSONL.
 */
beforeAll(async () => {
  root = await tempDir()
  const ctx = new Context()
  const fiber = await ctx.plugin(AgentSpine, { persistenceRoot: root })
  const agent = await ctx.harness.openAgent()
  parent = agent.id
  await agent.prompt('a first question about the project, long enough to be worth caching')
  await agent.prompt('a second question')
  const child = (await ctx.harness.side(agent.id, 'what did I ask first?')).child
  const aside = await ctx.harness.openAgent({ kind: 'resume', id: child })
  await ctx.harness.side(aside.id, 'and deeper?')
  await ctx.harness.side(agent.id, 'one more aside')
  await fiber.dispose()
})

describe('dsh-prompt view: the fork tree', () => {
  it('lists each child under its parent with its own requests and cached share, in the report, the JSON and the page', async () => {
    const out = await tempDir()
    const { code, stdout, stderr } = await runBin(['view', join(root, `${parent}.jsonl`), '--out', join(out, 'page.html')], out)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const lines = stdout.trimEnd().split('\n')
    expect(lines.slice(3)).toEqual([
      '3 child session(s):',
      expect.stringMatching(new RegExp(`^  └ ${parent}~1 side: "what did I ask first\\?": 1 request\\(s\\), \\d+\\.\\d% cached$`)),
      expect.stringMatching(new RegExp(`^    └ ${parent}~1~1 side: "and deeper\\?": 1 request\\(s\\), \\d+\\.\\d% cached$`)),
      expect.stringMatching(new RegExp(`^  └ ${parent}~2 side: "one more aside": 1 request\\(s\\), \\d+\\.\\d% cached$`)),
    ])
    // a side question's one request reads its parent's prefix from the (emulated) cache
    for (const line of lines.slice(4)) expect(Number(/(\d+\.\d)% cached$/.exec(line)![1])).toBeGreaterThan(50)

    const json = JSON.parse((await runBin(['view', join(root, `${parent}.jsonl`), '--out', join(out, 'j.html'), '--json'], out)).stdout)
    expect(json.tree.parent).toBeNull()
    expect(json.tree.children.map((child: { id: string; children: { id: string }[] }) => [child.id, child.children.map((grand) => grand.id)])).toEqual([
      [`${parent}~1`, [`${parent}~1~1`]],
      [`${parent}~2`, []],
    ])
    expect(json.tree.children[0]).toMatchObject({ mode: 'side', description: 'what did I ask first?', call: null, requests: 1, missing: null })
    expect(json.tree.children[0].cachedShare).toBeCloseTo(json.tree.children[0].cacheRead / json.tree.children[0].input)
    const page = await readFile(join(out, 'page.html'), 'utf8')
    expect(page).toContain(`"id":"${parent}~1~1"`)

    // drawn in Chromium: the children as a nested list, each with its cached share
    const browser = await launch()
    try {
      const { page: shown, watch } = await openPage(browser, join(out, 'page.html'))
      expect(watch.errors).toEqual([])
      const drawn = await shown.$$eval('#tree li[data-child]', (items) => items.map((item) => [
        item.getAttribute('data-child'), item.parentElement!.closest('li[data-child]')?.getAttribute('data-child') ?? null,
        item.querySelector(':scope > .tree-use')!.textContent,
      ]))
      expect(drawn.map(([id, under]) => [id, under])).toEqual([[`${parent}~1`, null], [`${parent}~1~1`, `${parent}~1`], [`${parent}~2`, null]])
      for (const [, , use] of drawn) expect(use).toMatch(/^1 request, \d+\.\d% cached \([\d,]+ of [\d,]+ prompt tokens\)$/)
    } finally {
      await browser.close()
    }
  })

  it('names the parent of a child session, and a child whose log is gone instead of failing', async () => {
    const out = await tempDir()
    const child = await runBin(['view', join(root, `${parent}~1.jsonl`), '--out', join(out, 'child.html')], out)
    expect(child.code).toBe(0)
    expect(child.stdout).toContain(`forked from ${parent} (side: "what did I ask first?")\n1 child session(s):\n`)

    await rm(join(root, `${parent}~2.jsonl`))
    const { code, stdout } = await runBin(['view', join(root, `${parent}.jsonl`), '--out', join(out, 'page.html')], out)
    expect(code).toBe(0)
    expect(stdout).toMatch(new RegExp(`  └ ${parent}~2 side: "one more aside": not readable: .*${parent}~2\\.jsonl`))
  })
})
