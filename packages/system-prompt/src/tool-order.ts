import { compareCodeUnits, listNames, quote, type ToolSchema } from 'dsh-core'
import { SystemPromptError } from './errors.ts'

/** The rest entry of a `toolOrder` list: where every tool the list does not name goes. */
export const TOOL_ORDER_REST = '<unlisted-tools>'

const byName = (a: ToolSchema, b: ToolSchema) => compareCodeUnits(a.name, b.name)

/** Checks the shape of a configured `toolOrder`; throws on the first problem. */
export function validateToolOrder(list: unknown): asserts list is readonly string[] {
  if (!Array.isArray(list)) {
    throw new SystemPromptError('INVALID_TOOL_ORDER', `toolOrder must be a list of tool names, got ${quote(list)}`)
  }
  if (list.length === 0) {
    throw new SystemPromptError(
      'INVALID_TOOL_ORDER',
      `toolOrder is an empty list; omit the key for lexicographic order, or list names around ${quote(TOOL_ORDER_REST)}`,
    )
  }
  const seen = new Set<string>()
  list.forEach((entry, index) => {
    if (typeof entry !== 'string' || entry === '') {
      throw new SystemPromptError('INVALID_TOOL_ORDER', `toolOrder[${index}] must be a non-empty tool name, got ${quote(entry)}`)
    }
    if (seen.has(entry)) {
      const what = entry === TOOL_ORDER_REST ? 'the rest entry' : 'tool'
      throw new SystemPromptError('INVALID_TOOL_ORDER', `toolOrder lists ${what} ${quote(entry)} twice`)
    }
    seen.add(entry)
  })
  if (!seen.has(TOOL_ORDER_REST)) {
    throw new SystemPromptError(
      'INVALID_TOOL_ORDER',
      `toolOrder must contain the rest entry ${quote(TOOL_ORDER_REST)} exactly once (where unlisted tools go); got ${list.map(quote).join(', ')}`,
    )
  }
}

/** A validated `toolOrder`, indexed once so placing N tools costs O(N), not O(N × listed). */
export class ToolOrderPolicy {
  readonly names: readonly string[]
  private readonly slots = new Map<string, number>()
  private readonly restIndex: number

  constructor(list: readonly string[]) {
    validateToolOrder(list)
    this.names = Object.freeze([...list])
    this.names.forEach((name, index) => this.slots.set(name, index))
    this.restIndex = this.slots.get(TOOL_ORDER_REST)!
  }

  /** Listed names that no provider knows, in list order. */
  unknownNames(knows: (name: string) => boolean): string[] {
    return this.names.filter((name) => name !== TOOL_ORDER_REST && !knows(name))
  }

  /** Throws the configuration error when a listed name is known to no provider. */
  assertKnown(knows: (name: string) => boolean, knownNames: () => string[]): void {
    const unknown = this.unknownNames(knows)
    if (unknown.length === 0) return
    const subject = unknown.length === 1 ? `unregistered tool ${quote(unknown[0])}` : `unregistered tools ${unknown.map(quote).join(', ')}`
    throw new SystemPromptError('UNKNOWN_TOOL_ORDER_NAME', `toolOrder lists ${subject}; known tools: ${listNames(knownNames())}`)
  }

  /**
   * Listed tools at their listed positions, the rest at the rest entry. `sorted` must already be in
   * code-unit order, which the rest then keeps: one pass, one map lookup per tool.
   */
  arrange(sorted: readonly ToolSchema[]): ToolSchema[] {
    const listed: (ToolSchema | undefined)[] = new Array(this.names.length)
    const rest: ToolSchema[] = []
    for (const tool of sorted) {
      const slot = this.slots.get(tool.name)
      if (slot === undefined) rest.push(tool)
      else listed[slot] = tool
    }
    const result: ToolSchema[] = []
    for (let index = 0; index < listed.length; index++) {
      if (index === this.restIndex) result.push(...rest)
      else if (listed[index]) result.push(listed[index]!)
    }
    return result
  }
}

/**
 * The canonical model-facing order of `tools`: with `toolOrder`, listed tools at their positions and the
 * rest in code-unit order at the rest entry; without it, plain code-unit order. `knownNames` (default:
 * the tools' names) decides which listed names are unregistered.
 */
export function canonicalToolOrder(tools: readonly ToolSchema[], toolOrder?: readonly string[], knownNames?: readonly string[]): ToolSchema[] {
  const sorted = [...tools].sort(byName)
  if (!toolOrder) return sorted
  const policy = new ToolOrderPolicy(toolOrder)
  const known = new Set(knownNames ?? tools.map((tool) => tool.name))
  policy.assertKnown((name) => known.has(name), () => [...known].sort(compareCodeUnits))
  return policy.arrange(sorted)
}
