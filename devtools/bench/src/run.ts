/**
 * `npm run -s bench [-- --json] [-- --only name] [-- --big-log]`: runs every benchmark module in this folder and prints the
 * measured ratios (side by side in one process) next to their targets. Not a test: it never fails a build.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const modules = ['register', 'system-prompt', 'reference', 'session', 'jsonl', 'loop', 'compaction', 'boot', 'session-postgres', 'fleet']
const args = process.argv.slice(2).filter((arg) => arg !== '--')
const json = args.includes('--json')
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined

const results: Record<string, number | string | null> = {}
const targets: Record<string, number> = {}
for (const name of modules) {
  if (only && only !== name) continue
  // `.ts` under tsx from src/, `.js` when built
  const file = new URL(`./${name}${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url)
  if (!existsSync(fileURLToPath(file))) continue
  const mod = await import(file.href)
  if (!json) process.stderr.write(`bench: ${name}…\n`)
  Object.assign(results, await mod.run(args))
  Object.assign(targets, mod.targets ?? {})
}

if (json) {
  process.stdout.write(JSON.stringify(results) + '\n')
} else {
  for (const [key, value] of Object.entries(results)) {
    const target = targets[key]
    const verdict = target === undefined || typeof value !== 'number' ? '' : value <= target ? `  (target ≤ ${target}: met)` : `  (target ≤ ${target}: MISSED)`
    console.log(`${key.padEnd(36)} ${String(value).padStart(10)}${verdict}`)
  }
}
