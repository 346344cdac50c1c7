// Installs the workspace with the pinned pnpm when node_modules is missing or older than the lockfile,
// then builds the packages when a dist is missing or stale (ensure-build.mjs).
// Only Node and npm are assumed; pnpm's output goes to stderr so piped demo output stays clean.
import { spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureBuild } from './ensure-build.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const marker = join(root, 'node_modules', '.modules.yaml')
const lock = join(root, 'pnpm-lock.yaml')
const manifest = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(join(root, 'package.json'), 'utf8')))
const pnpm = manifest.packageManager

const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs
if (!fresh) {
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx'
  const result = spawnSync(npx, ['-y', pnpm, 'install', '--frozen-lockfile'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  })
  if (result.status !== 0) {
    console.error(`dsh: "${pnpm} install --frozen-lockfile" failed (exit ${result.status ?? result.signal})`)
    process.exit(result.status ?? 1)
  }
}

if (!ensureBuild(root)) process.exit(1)
