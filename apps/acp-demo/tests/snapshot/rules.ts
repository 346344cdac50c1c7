import { readdir, readFile } from 'node:fs/promises'
import { basename, join, relative } from 'node:path'
import { SYSTEM_PLACEHOLDER, TOOLS_PLACEHOLDER } from './normalize.ts'
import { PINNED_SCENARIO, REPO_ROOT, SCENARIOS_ROOT, scenarioDirs } from './scenario.ts'

/** The folder every fixture lives in; the key scan reads all of it. */
export const FIXTURES_ROOT = join(REPO_ROOT, 'fixtures')
export const PINNED_FILES = ['system-prompt.expected.md', 'tool-schemas.expected.json']

function shown(path: string): string {
  const inside = relative(REPO_ROOT, path)
  return inside && !inside.startsWith('..') ? inside : path
}

/**
 * The pinned-header rule, as problems (empty when it holds): only the pinned scenario keeps real
 * `system`/`tools` in its request headers and has the pinned header files; every other scenario's
 * headers hold exactly `"{{system}}"` and `"{{tools}}"`.
 */
export async function placeholderProblems(root = SCENARIOS_ROOT): Promise<string[]> {
  const problems: string[] = []
  for (const dir of await scenarioDirs(root)) {
    const pinned = basename(dir) === PINNED_SCENARIO
    const files = await readdir(dir)
    for (const name of PINNED_FILES) {
      if (pinned && !files.includes(name)) problems.push(`${shown(join(dir, name))}: missing; the pinned scenario must pin the header`)
      if (!pinned && files.includes(name)) problems.push(`${shown(join(dir, name))}: only ${PINNED_SCENARIO} pins the header; delete this file`)
    }
    const file = join(dir, 'session.jsonl')
    const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n')
    let headers = 0
    lines.forEach((line, index) => {
      if (!line.includes('"request/header"')) return
      const { system, tools } = JSON.parse(line).data.header
      const at = `${shown(file)}:${index + 1}`
      headers++
      if (pinned && (typeof system !== 'string' || system === SYSTEM_PLACEHOLDER || !Array.isArray(tools))) {
        problems.push(`${at}: the pinned scenario must keep the real system prompt and tool list`)
      }
      if (!pinned && (system !== SYSTEM_PLACEHOLDER || tools !== TOOLS_PLACEHOLDER)) {
        problems.push(`${at}: header must hold exactly "${SYSTEM_PLACEHOLDER}" and "${TOOLS_PLACEHOLDER}"; only ${PINNED_SCENARIO} pins a real header`)
      }
    })
    if (pinned && !headers) problems.push(`${shown(file)}: the pinned scenario logged no request/header`)
  }
  return problems
}

// What a leaked credential looks like. Broad on purpose: a false alarm costs a look, a leak costs a key.
const KEY_SHAPES: [RegExp, string][] = [
  [/sk-[A-Za-z0-9_-]{16,}/, 'an sk- API key'],
  [/Bearer\s/, 'a Bearer token'],
  [/AKIA[0-9A-Z]{16}/, 'an AWS access key id'],
  [/\b(ghp|gho|ghs|github_pat)_[A-Za-z0-9_]{20,}/, 'a GitHub token'],
  [/xox[abpr]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])/, 'a long hex secret'],
  [/(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[A-Za-z])[A-Za-z0-9+/_-]{40,}={0,2}/, 'a long base64 secret'],
]

async function filesUnder(dir: string): Promise<string[]> {
  const items = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(items.map((item) => {
    const path = join(dir, item.name)
    return item.isDirectory() ? filesUnder(path) : Promise.resolve([path])
  }))
  return nested.flat().sort()
}

/** Every key-shaped string in any file under `root`, as `file:line: what`. */
export async function secretProblems(root = FIXTURES_ROOT): Promise<string[]> {
  const problems: string[] = []
  for (const file of await filesUnder(root)) {
    const lines = (await readFile(file, 'utf8')).split('\n')
    lines.forEach((line, index) => {
      for (const [pattern, what] of KEY_SHAPES) {
        if (pattern.test(line)) problems.push(`${shown(file)}:${index + 1}: looks like ${what}`)
      }
    })
  }
  return problems
}
