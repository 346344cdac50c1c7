import { canonicalJson, deepFreeze, isDeepFrozen, type ToolSchema } from 'dsh-core'
import { type GenerateOptions, type ToolUpdateMode } from 'dsh-llm'
import { shortHash } from './hash.ts'
import { sectionSpans } from './sections.ts'
import type { RenderedSection } from 'dsh-system-prompt/bytes'
import type { RequestFingerprint } from './types.ts'

/** What a request does not carry itself but its fingerprint can record. */
export interface FingerprintContext {
  /** The rendered sections behind `options.system`; ignored unless they render to exactly that text. */
  sections?: readonly RenderedSection[]
  /** The tool-update mode of the route serving the request. */
  toolUpdateMode?: ToolUpdateMode
}

/** The parts of a request a fingerprint reads. */
export type FingerprintedRequest = Pick<GenerateOptions, 'model' | 'system' | 'tools' | 'deferredTools'>

const toolHashes = new WeakMap<ToolSchema, string>()

/** The last fingerprint taken of each deep-frozen tool list, with the inputs it was taken of. */
interface Remembered {
  model: string
  system: string
  deferredTools: readonly string[] | undefined
  sections: readonly RenderedSection[] | undefined
  toolUpdateMode: ToolUpdateMode | undefined
  print: RequestFingerprint
}

const remembered = new WeakMap<readonly ToolSchema[], Remembered>()

/**
 * The fingerprint of a request's cacheable front: model, system prompt and section hashes, tool names in
 * order with a hash of each declaration, and the header flags. Pure: reads `options`, changes nothing.
 * The loop sends one logged (deep-frozen) header step after step; for the same tool list, system text,
 * deferred list, sections and mode the same deep-frozen fingerprint is returned, so a step costs no hashing.
 */
export function fingerprint(options: FingerprintedRequest, context: FingerprintContext = {}): RequestFingerprint {
  const { model, system, tools, deferredTools } = options
  const { sections, toolUpdateMode } = context
  const known = remembered.get(tools)
  if (known && known.model === model && known.system === system && known.deferredTools === deferredTools
    && known.sections === sections && known.toolUpdateMode === toolUpdateMode) return known.print
  const print = compute(options, context)
  if (isDeepFrozen(tools) && isDeepFrozen(deferredTools) && isDeepFrozen(sections)) {
    remembered.set(tools, { model, system, deferredTools, sections, toolUpdateMode, print: deepFreeze(print) })
  }
  return print
}

function compute(options: FingerprintedRequest, context: FingerprintContext): RequestFingerprint {
  const sections = context.sections && sectionSpans(context.sections, options.system)
  return {
    model: options.model,
    systemHash: shortHash(options.system),
    systemBytes: Buffer.byteLength(options.system),
    ...(sections ? { sections } : {}),
    tools: options.tools.map((tool) => ({ name: tool.name, hash: toolHash(tool) })),
    deferredTools: [...(options.deferredTools ?? [])],
    ...(context.toolUpdateMode ? { toolUpdateMode: context.toolUpdateMode } : {}),
  }
}

/**
 * Hash of the declaration with its object keys in code-unit order: a schema that only changed its key
 * order is the same tool, not `tools_schema_changed`. The system prompt sends canonical keys by default,
 * so the bytes do not change either; under `schemaKeyOrder: registered` such a reorder still breaks the
 * cache and shows as a break without a tool reason.
 */
function toolHash(tool: ToolSchema): string {
  let hash = toolHashes.get(tool)
  if (hash !== undefined) return hash
  hash = shortHash(JSON.stringify(canonicalJson(tool)))
  // The loop sends the same deep-frozen snapshots step after step; only those can be hashed once.
  if (isDeepFrozen(tool)) toolHashes.set(tool, hash)
  return hash
}
