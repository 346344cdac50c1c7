import { createRequire } from 'node:module'
import type { Ajv, ErrorObject } from 'ajv'

// ajv (a CommonJS package of about a hundred files) is loaded when the first validator is compiled, not when
// the app starts: registering and showing tools never needs it, and most sessions call few tools.
const require = createRequire(import.meta.url)

/** How many argument problems one message lists before it summarizes the rest. */
const MAX_REPORTED = 20

/**
 * One ajv instance per runtime. `addUsedSchema: false` keeps each tool's schema out of the shared
 * registry, so two tools may carry the same `$id`. Unknown keywords stay an error (strict schema) because
 * a misspelt `requried` would silently stop validating what the model was told; `format` is not enforced
 * because ajv knows no formats without the ajv-formats package.
 */
export function createAjv(): Ajv {
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv')
  return new AjvClass({
    allErrors: true,
    addUsedSchema: false,
    validateFormats: false,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    logger: false,
  })
}

/** Returns undefined for valid arguments, otherwise a description of every problem. */
export type ArgumentCheck = (args: unknown) => string | undefined

/**
 * Argument validators compiled on first use and shared by identical schemas. Registering a tool costs
 * nothing here: MCP servers list hundreds of tools and list them again on every change, while most tools
 * are never called. Schemas are keyed by their JSON text, so tools (or re-listed servers) with the same
 * parameters share one compiled function.
 */
export class ValidatorPool {
  private readonly compiled = new Map<string, ArgumentCheck>()
  private ajv: Ajv | undefined

  /** `make` builds the ajv instance on the first compile. */
  constructor(private readonly make: () => Ajv = createAjv) {}

  /** How many distinct schemas have been compiled so far. */
  get size(): number {
    return this.compiled.size
  }

  /** A check that compiles (or finds) the validator of `parameters` when it first runs. */
  lazy(parameters: object): ArgumentCheck {
    let check: ArgumentCheck | undefined
    return (args) => (check ??= this.get(parameters))(args)
  }

  /** The validator of `parameters`; throws ajv's error when it is not a valid JSON Schema or cannot be compiled. */
  get(parameters: object): ArgumentCheck {
    const key = JSON.stringify(parameters)
    let check = this.compiled.get(key)
    if (!check) {
      try {
        const validate = (this.ajv ??= this.make()).compile(withBaseId(parameters))
        check = (args) => (validate(args) ? undefined : describeErrors(validate.errors ?? []))
      } catch (error) {
        // Remembered as a check that throws: ajv caches a schema it failed on, and a retry would pass it.
        check = () => { throw error }
      }
      this.compiled.set(key, check)
    }
    return check
  }
}
/**
 * ajv resolves `{"$ref": "#"}` (recursion to the root) only against a schema with a base URI, and schemas kept
 * out of its registry (`addUsedSchema: false`) have none: a schema without `$id` gets a placeholder one, for
 * compiling only (what the model sees keeps the author's schema).
 */
function withBaseId(parameters: object): object {
  const id = (parameters as { $id?: unknown }).$id
  return typeof id === 'string' && id !== '' ? parameters : { ...parameters, $id: 'dsh:tool-parameters' }
}

/** ajv's errors as one line the model can act on: `/path must be string; arguments must have …`. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  const lines = errors.slice(0, MAX_REPORTED).map(describeError)
  if (errors.length > MAX_REPORTED) lines.push(`… and ${errors.length - MAX_REPORTED} more`)
  return lines.join('; ')
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'arguments' : error.instancePath
  let text = `${where} ${error.message ?? `fails ${error.keyword}`}`
  // ajv's own wording omits the offending property and the allowed values; the model needs both to retry.
  if (error.keyword === 'additionalProperties') text += ` (${JSON.stringify(error.params.additionalProperty)})`
  if (error.keyword === 'enum') text += `: ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`
  return text
}
