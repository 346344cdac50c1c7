import type { RequestHeader } from 'dsh-session'
import { sha256 } from 'dsh-system-prompt/bytes'

/** The header exactly as the agent loop logs it in a `request/header` event: `{ model, system, tools }`. */
function serializeHeader(header: RequestHeader): string {
  return JSON.stringify({ model: header.model, system: header.system, tools: header.tools })
}

/**
 * The request prefix a provider caches, in request order: `JSON.stringify(tools)`, a newline, then the
 * rendered system prompt. The model id is not part of it (a different model is a different cache anyway).
 */
export function serializePrefix(header: Pick<RequestHeader, 'system' | 'tools'>): string {
  return `${JSON.stringify(header.tools)}\n${header.system}`
}

/** Hashes of a header and of each of its parts. */
export interface Fingerprint {
  /** sha256 of `serializeHeader(header)`. */
  header: string
  /** sha256 of `serializePrefix(header)`. */
  prefix: string
  model: string
  system: string
  /** sha256 of `JSON.stringify(tools)`. */
  tools: string
  /** sha256 of `JSON.stringify(tool)`, per tool in order. */
  perTool: { name: string; sha256: string }[]
}

/** Fingerprints a header: the whole, the prefix and every part. */
export function fingerprint(header: RequestHeader): Fingerprint {
  return {
    header: sha256(serializeHeader(header)),
    prefix: sha256(serializePrefix(header)),
    model: sha256(header.model),
    system: sha256(header.system),
    tools: sha256(JSON.stringify(header.tools)),
    perTool: header.tools.map((tool) => ({ name: tool.name, sha256: sha256(JSON.stringify(tool)) })),
  }
}
