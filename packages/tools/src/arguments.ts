import { Ajv, type ErrorObject } from 'ajv'

/** How many argument problems one message lists before it summarizes the rest. */
const MAX_REPORTED = 20

/**
 * One ajv instance per runtime. `addUsedSchema: false` keeps each tool's schema out of the shared
 * registry, so two tools may carry the same `$id`. Unknown keywords stay an error (strict schema) because
 * a misspelt `requried` would silently stop validating what the model was told; `format` is not enforced
 * because ajv knows no formats without the ajv-formats package.
 */
export function createAjv(): Ajv {
  return new Ajv({
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

/** Compiles a tool's parameters once; the result describes invalid arguments or returns undefined. */
export function compileArguments(ajv: Ajv, parameters: object): (args: unknown) => string | undefined {
  const validate = ajv.compile(parameters)
  return (args) => (validate(args) ? undefined : describeErrors(validate.errors ?? []))
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
