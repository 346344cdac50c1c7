// A plugin the snapshot replay adds to the app file: it appends every request the LLM runtime dispatches
// (all of it but the AbortSignal) to `file`, one JSON line each, for the reconstruction check.
// Plain JavaScript: the executable under test runs built code, without a TypeScript loader.
import { appendFileSync } from 'node:fs'

export const name = 'snapshot-request-tap'
export const inject = ['llm']

export function apply(ctx, config) {
  ctx.on('llm/request', (options) => {
    const { signal, ...request } = options
    appendFileSync(config.file, `${JSON.stringify(request)}\n`)
  })
}
