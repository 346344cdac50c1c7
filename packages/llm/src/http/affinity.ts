import { quote } from 'dsh-core'
import type { ProviderProfile } from '../profiles/types.ts'

/**
 * Where a model entry pins its requests on a local engine (its `affinity`), by the request field the engine
 * documents: llama.cpp's `id_slot` (a slot of `slots`, the server's `-np`), SGLang's `session_id`, vLLM's
 * `cache_salt`. The wire sends the field; `dsh-llm-openai`'s README says what each one does and does not do.
 */
export type ModelAffinity = { field: 'id_slot'; slots: number } | { field: 'session_id' } | { field: 'cache_salt' }

/** The fields an `affinity` may name. */
export const AFFINITY_FIELDS = ['id_slot', 'session_id', 'cache_salt'] as const

/**
 * The entry's `affinity`, checked: a known field; `slots` a whole number >= 2 with `id_slot` and only there;
 * the generic profile only (each field is one engine's, and a hosted API would refuse or ignore it); an
 * adapter whose wire sends it. Throws what `invalid` builds, one line naming the model and the bad value.
 */
export function resolveAffinity(
  id: string, value: unknown, profile: ProviderProfile, sends: boolean, owner: string, invalid: (message: string) => Error,
): ModelAffinity | undefined {
  if (value === undefined) return undefined
  const at = `model ${quote(id)} has affinity ${typeof value === 'object' && value !== null ? JSON.stringify(value) : quote(value)}`
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${at}; it must be { field: ${AFFINITY_FIELDS.join(' | ')} } (id_slot with slots: N)`)
  }
  const { field, slots, ...rest } = value as Record<string, unknown>
  if (!(AFFINITY_FIELDS as readonly unknown[]).includes(field)) throw invalid(`${at}: field must be one of ${AFFINITY_FIELDS.join(', ')}`)
  const extra = Object.keys(rest)
  if (extra.length) throw invalid(`${at}: unknown key ${extra.join(', ')}; valid: field, slots (id_slot only)`)
  if (!sends) throw invalid(`${at}, but ${owner} does not send affinity fields; serve the model through dsh-llm-openai`)
  if (profile.id !== 'generic') {
    throw invalid(`${at}, but its profile is ${profile.id}: affinity fields are local engines' (llama.cpp, SGLang, vLLM), on the generic profile only`)
  }
  if (field !== 'id_slot') {
    if (slots !== undefined) throw invalid(`${at}: slots goes with field id_slot only`)
    return { field: field as 'session_id' | 'cache_salt' }
  }
  if (!Number.isSafeInteger(slots) || (slots as number) < 2) {
    throw invalid(`${at}: slots must be the server's slot count, a whole number >= 2 (with one slot a child evicts its parent: start llama-server with -np 2)`)
  }
  return { field: 'id_slot', slots: slots as number }
}
