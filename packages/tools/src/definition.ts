import { messageOf, describeValue } from 'dsh-core'
import type { Ajv } from 'ajv'
import { TOOL_ORDER_REST, snapshotSchema } from 'dsh-system-prompt'
import { compileArguments } from './arguments.ts'
import { ToolError } from './errors.ts'
import type { ExecutableTool, ToolEntry } from './types.ts'

/** The tool names model providers accept (OpenAI and Anthropic agree on this pattern). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** The largest delay `setTimeout` honours; a larger one fires at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647

/** Checks a timeout in milliseconds: a positive integer that `setTimeout` can represent. */
export function checkTimeout(value: unknown, where: string, code: 'INVALID_TOOL' | 'INVALID_CONFIG'): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw new ToolError(code, `${where} must be an integer number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${describeValue(value)}`)
  }
}

function checkName(name: unknown): asserts name is string {
  if (name === TOOL_ORDER_REST) {
    throw new ToolError('RESERVED_TOOL_NAME', `tool name ${describeValue(name)} is reserved for toolOrder's rest entry`)
  }
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    const length = typeof name === 'string' && name.length > 64 ? ` (it has ${name.length} characters)` : ''
    throw new ToolError('INVALID_TOOL_NAME', `tool name ${describeValue(name)} must match ${TOOL_NAME}, the names model providers accept${length}`)
  }
}

const isPlainObject = (value: object) => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** A JSON-only copy: what the model is shown must survive serialization unchanged. Undefined members drop out. */
function toJson(value: unknown, path: string, open: Set<object>): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value
    throw new Error(`${path} is ${value}, which JSON cannot carry`)
  }
  if (typeof value !== 'object') throw new Error(`${path} is ${value === undefined ? 'undefined' : `a ${typeof value}`}`)
  if (open.has(value)) throw new Error(`${path} refers back to itself`)
  open.add(value)
  try {
    if (Array.isArray(value)) return value.map((item, index) => toJson(item, `${path}[${index}]`, open))
    if (!isPlainObject(value)) throw new Error(`${path} is a ${value.constructor?.name ?? 'non-plain object'}, not a plain object`)
    const copy: Record<string, unknown> = {}
    for (const [key, member] of Object.entries(value)) {
      if (member !== undefined) copy[key] = toJson(member, `${path}.${key}`, open)
    }
    return copy
  } finally {
    open.delete(value)
  }
}

function checkParameters(name: string, parameters: unknown): object {
  if (!parameters || typeof parameters !== 'object' || Array.isArray(parameters)) {
    throw new ToolError('INVALID_PARAMETERS', `tool ${describeValue(name)} needs parameters as a JSON Schema object, got ${describeValue(parameters)}`)
  }
  let copy: object
  try {
    copy = toJson(parameters, 'parameters', new Set()) as object
  } catch (error) {
    throw new ToolError('INVALID_PARAMETERS', `tool ${describeValue(name)} has parameters that are not plain JSON: ${messageOf(error)}`)
  }
  const type = (copy as { type?: unknown }).type
  if (type !== 'object') {
    throw new ToolError(
      'INVALID_PARAMETERS',
      `tool ${describeValue(name)} needs parameters with type "object" at the root (model providers pass arguments as an object), got type ${describeValue(type)}`,
    )
  }
  return copy
}

/** Checks a definition and prepares everything a call needs, once. Every error names the tool. */
export function prepareTool(input: unknown, ajv: Ajv): ToolEntry {
  if (!input || typeof input !== 'object') {
    throw new ToolError('INVALID_TOOL', `tools.register() needs a tool definition object, got ${describeValue(input)}`)
  }
  const definition = input as ExecutableTool
  const { name, description, execute, shouldDefer, alwaysLoad, timeoutMs } = definition
  checkName(name)
  if (typeof description !== 'string') {
    throw new ToolError('INVALID_TOOL', `tool ${describeValue(name)} needs a description string, got ${describeValue(description)}`)
  }
  if (typeof execute !== 'function') {
    throw new ToolError('INVALID_TOOL', `tool ${describeValue(name)} needs an execute function, got ${describeValue(execute)}`)
  }
  for (const [flag, value] of [['shouldDefer', shouldDefer], ['alwaysLoad', alwaysLoad]] as const) {
    if (value !== undefined && typeof value !== 'boolean') {
      throw new ToolError('INVALID_TOOL', `tool ${describeValue(name)} has ${flag} ${describeValue(value)}; it must be true, false or omitted`)
    }
  }
  if (timeoutMs !== undefined) checkTimeout(timeoutMs, `tool ${describeValue(name)} timeoutMs`, 'INVALID_TOOL')

  const parameters = checkParameters(name, definition.parameters)
  // In the author's key order: the system prompt's schemaKeyOrder decides the model-facing order, and
  // makes its canonical copy once per this object (snapshots are cached by identity).
  const schema = snapshotSchema({ name, description, parameters }, `tool ${describeValue(name)}`, 'registered')
  let check: ToolEntry['check']
  try {
    check = compileArguments(ajv, schema.parameters)
  } catch (error) {
    throw new ToolError('INVALID_PARAMETERS', `tool ${describeValue(name)} has parameters that are not a valid JSON Schema: ${messageOf(error)}`)
  }
  // Listed field by field: a class-based tool keeps execute on its prototype, where a spread would miss it.
  const copy: ExecutableTool = { name, description, parameters: schema.parameters, execute: execute.bind(definition) }
  if (shouldDefer !== undefined) copy.shouldDefer = shouldDefer
  if (alwaysLoad !== undefined) copy.alwaysLoad = alwaysLoad
  if (timeoutMs !== undefined) copy.timeoutMs = timeoutMs
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
