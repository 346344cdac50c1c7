import { MAX_TIMER_MS, messageOf, describeValue, frozenPlainJsonCopy } from 'dsh-core'
import { TOOL_ORDER_REST, snapshotSchema } from 'dsh-system-prompt'
import type { ValidatorPool } from './arguments.ts'
import { ToolsError } from './errors.ts'
import { checkKind, kindFromHints } from './kinds.ts'
import type { ExecutableTool, ToolAnnotations, ToolEntry } from './types.ts'

/** The tool names model providers accept (OpenAI and Anthropic agree on this pattern). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** Checks a timeout in milliseconds: a positive integer that `setTimeout` can represent. */
export function checkTimeout(value: unknown, where: string, code: 'INVALID_TOOL' | 'INVALID_CONFIG'): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS) {
    throw new ToolsError(code, `${where} must be an integer number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${describeValue(value)}`)
  }
}

function checkName(name: unknown): asserts name is string {
  if (name === TOOL_ORDER_REST) {
    throw new ToolsError('RESERVED_TOOL_NAME', `tool name ${describeValue(name)} is reserved for toolOrder's rest entry`)
  }
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    const length = typeof name === 'string' && name.length > 64 ? ` (it has ${name.length} characters)` : ''
    throw new ToolsError('INVALID_TOOL_NAME', `tool name ${describeValue(name)} must match ${TOOL_NAME}, the names model providers accept${length}`)
  }
}

function checkParameters(name: string, parameters: unknown): object {
  if (!parameters || typeof parameters !== 'object' || Array.isArray(parameters)) {
    throw new ToolsError('INVALID_PARAMETERS', `tool ${describeValue(name)} needs parameters as a JSON Schema object, got ${describeValue(parameters)}`)
  }
  // Checked and copied in one pass that also freezes the copy and registers it as deeply frozen; parameters
  // someone deep-froze already (a shared constant) cannot change and are their own copy.
  let copy: object
  try {
    copy = frozenPlainJsonCopy(parameters, 'parameters')
  } catch (error) {
    throw new ToolsError('INVALID_PARAMETERS', `tool ${describeValue(name)} has parameters that are not plain JSON: ${messageOf(error)}`)
  }
  const type = (parameters as { type?: unknown }).type
  if (type !== 'object') {
    throw new ToolsError(
      'INVALID_PARAMETERS',
      `tool ${describeValue(name)} needs parameters with type "object" at the root (model providers pass arguments as an object), got type ${describeValue(type)}`,
    )
  }
  return copy
}

function checkFlag(name: string, flag: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new ToolsError('INVALID_TOOL', `tool ${describeValue(name)} has ${flag} ${describeValue(value)}; it must be true, false or omitted`)
  }
}

const ANNOTATION_KEYS = ['readOnlyHint', 'destructiveHint'] as const

/** The annotations the runtime keeps (others, such as MCP's `title` or `openWorldHint`, are dropped), frozen. */
function checkAnnotations(name: string, value: unknown): Readonly<ToolAnnotations> | undefined {
  if (value === undefined) return undefined
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ToolsError('INVALID_TOOL', `tool ${describeValue(name)} has annotations ${describeValue(value)}; they must be an object such as { readOnlyHint: true } or omitted`)
  }
  const kept: ToolAnnotations = {}
  for (const key of ANNOTATION_KEYS) {
    const flag = (value as Record<string, unknown>)[key]
    checkFlag(name, `annotations.${key}`, flag)
    if (flag !== undefined) kept[key] = flag as boolean
  }
  return Object.freeze(kept)
}

/**
 * Checks a definition and prepares what a call needs. Every error names the tool. The parameters are
 * checked here for being plain JSON with `type: "object"` at the root; checking them as a JSON Schema and
 * compiling their validator wait for the first call (`validators.lazy`), so registering compiles nothing.
 */
export function prepareTool(input: unknown, validators: ValidatorPool): ToolEntry {
  if (!input || typeof input !== 'object') {
    throw new ToolsError('INVALID_TOOL', `tools.register() needs a tool definition object, got ${describeValue(input)}`)
  }
  const definition = input as ExecutableTool
  const { name, description, execute, shouldDefer, alwaysLoad, timeoutMs } = definition
  checkName(name)
  if (typeof description !== 'string') {
    throw new ToolsError('INVALID_TOOL', `tool ${describeValue(name)} needs a description string, got ${describeValue(description)}`)
  }
  if (typeof execute !== 'function') {
    throw new ToolsError('INVALID_TOOL', `tool ${describeValue(name)} needs an execute function, got ${describeValue(execute)}`)
  }
  checkFlag(name, 'shouldDefer', shouldDefer)
  checkFlag(name, 'alwaysLoad', alwaysLoad)
  if (timeoutMs !== undefined) checkTimeout(timeoutMs, `tool ${describeValue(name)} timeoutMs`, 'INVALID_TOOL')
  const annotations = checkAnnotations(name, definition.annotations)
  const kind = checkKind(name, definition.kind) ?? kindFromHints(annotations)

  const parameters = checkParameters(name, definition.parameters)
  // In the author's key order (the system prompt's schemaKeyOrder decides the model-facing order, once per
  // object), and deep-frozen already, so the registered-order snapshot is this very object.
  const schema = snapshotSchema(Object.freeze({ name, description, parameters }), `tool ${describeValue(name)}`, 'registered')
  const check = validators.lazy(schema.parameters)
  // Listed field by field: a class-based tool keeps execute on its prototype, where a spread would miss it.
  const copy: ExecutableTool = { name, description, parameters: schema.parameters, execute: execute.bind(definition) }
  if (shouldDefer !== undefined) copy.shouldDefer = shouldDefer
  if (alwaysLoad !== undefined) copy.alwaysLoad = alwaysLoad
  if (timeoutMs !== undefined) copy.timeoutMs = timeoutMs
  if (annotations !== undefined) copy.annotations = annotations
  if (kind !== undefined) copy.kind = kind
  return {
    name,
    definition: Object.freeze(copy),
    schema,
    check,
    deferred: shouldDefer === true,
    alwaysLoad: alwaysLoad === true,
    timeoutMs,
  }
}
