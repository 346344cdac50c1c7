// vitest globalSetup: tests run the sources, but the bins they spawn run dist/, so build it first if stale.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureBuild } from './ensure-build.mjs'

export default function setup() {
  if (!ensureBuild(join(dirname(fileURLToPath(import.meta.url)), '..'))) throw new Error('the build failed (see above)')
}
