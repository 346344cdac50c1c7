import { createHash } from 'node:crypto'
import type { GenerateOptions } from 'dsh-llm'
import type { HttpModel } from 'dsh-llm/http'

/** What the local engines document on their Chat Completions route to pin a request (see the README). */
export interface AffinityFields {
  /** llama.cpp: the slot that runs the request (`-1`, the server's pick, when absent). */
  id_slot?: number
  /** SGLang: the session the request's KV is tagged with (`--enable-session-radix-cache`). */
  session_id?: string
  /** vLLM: the salt of the request's prefix-cache hashes; only requests with the same salt share blocks. */
  cache_salt?: string
}

/**
 * The affinity field of a request on a model whose entry names one, from the request's session line; nothing
 * without an `affinity` or a `lineage`. A pure function, so a request rebuilt with its lineage gets the same bytes.
 * - `id_slot`: a root session's slot is a hash of its id over `slots`. A `fork` or `side` child runs on its
 *   parent's slot: its prompt starts with the parent's, so the slot keeps the shared prefix (llama.cpp reuses
 *   the common prefix of the slot's prompt) and the child reads it. A `fresh` child, whose prefix is its own,
 *   runs on one of the other `slots - 1` slots (the n-th after its parent's, cycling), so it never evicts it;
 * - `session_id`: the request's own session id (a child's KV is tagged apart from its parent's);
 * - `cache_salt`: one salt per line (a hash of the root session id), so a fork reads its parent's blocks and
 *   no other line does.
 */
export function affinityFields(model: HttpModel | undefined, lineage: GenerateOptions['lineage']): AffinityFields {
  const affinity = model?.affinity
  if (!affinity || !lineage) return {}
  const root = lineage.session.split('~')[0]!
  switch (affinity.field) {
    case 'id_slot': return { id_slot: slotOf(lineage, affinity.slots) }
    case 'session_id': return { session_id: lineage.session }
    case 'cache_salt': return { cache_salt: digest(root).toString('base64url') }
  }
}

/**
 * The slot of a request's line among `slots` (>= 2). The modes of the ancestors above the parent are not in
 * the lineage: they count as sharing their parent's slot (see the README's known limitations).
 */
function slotOf(lineage: NonNullable<GenerateOptions['lineage']>, slots: number): number {
  const [root = lineage.session] = lineage.session.split('~')
  const home = digest(root).readUInt32BE(0) % slots
  if (lineage.mode !== 'fresh') return home
  const n = Number.parseInt(lineage.session.slice(lineage.session.lastIndexOf('~') + 1), 10)
  const step = Number.isSafeInteger(n) && n >= 1 ? (n - 1) % (slots - 1) : 0
  return (home + 1 + step) % slots
}

const digest = (text: string) => createHash('sha256').update(text).digest()
