import { execFileSync } from 'node:child_process'
import { afterEach } from 'vitest'

const mounted: string[] = []
afterEach(() => {
  for (const point of mounted.splice(0)) execFileSync('umount', [point])
})

/**
 * Mounts an empty tmpfs at `point` with `options` (e.g. `size=256k`, `ro,size=64k`), unmounted after the test;
 * false where this user may not mount.
 */
export function mountTmpfs(point: string, options: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', point], { stdio: 'ignore' })
  } catch {
    return false
  }
  mounted.push(point)
  return true
}
