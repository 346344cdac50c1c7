import Schema from 'schemastery'

/** Any schemastery schema. */
export type AnySchema = Schema<any, any>

/** The fields of an event's data (or of a record inside it), each a schemastery schema. */
export type Fields = Record<string, AnySchema>

/** The value a schema stands for (schemastery's inference). */
export type TypeOf<X> = Schemastery.TypeT<X>

type OptionalKeys<X extends Fields> = { [K in keyof X]-?: undefined extends TypeOf<X[K]> ? K : never }[keyof X]
type Flat<T> = { [K in keyof T]: T[K] }

/**
 * The object a `record(fields)` stands for: a field made with `optional()` may be absent, every other one
 * is required. (Schemastery's own `Schema.object` type has every key present and any other key too.)
 */
export type RecordOf<X extends Fields> = Flat<
  & { [K in Exclude<keyof X, OptionalKeys<X>>]: TypeOf<X[K]> }
  & { [K in OptionalKeys<X>]?: Exclude<TypeOf<X[K]>, undefined> }
>

/** The data type of each event of a table of event schemas, by type. */
export type EventMapOf<T extends Record<string, AnySchema>> = { [K in keyof T]: TypeOf<T[K]> }

/** Reports a bad value inside a refined one: `path` relative to it (`.name`, `[2]`, '' for itself). */
export type Problem = (path: string, expected: string, value: unknown) => never

/** A check a schema's structure cannot say (order, uniqueness), run after the structure is valid. */
export type Rule<T> = (value: T, problem: Problem) => void

// A schema's copies (`.required()`, `.description()`) share its dict and callback: rules and open records
// are found through them.
const rules = new WeakMap<Function, Rule<any>>()
const openDicts = new WeakSet<object>()

/**
 * A JSON object with these fields: required unless made with `optional()`, and no others (`open: true`
 * accepts other fields as JSON, for data whose earlier versions logged fields that are gone).
 */
export function record<X extends Fields>(fields: X, options: { open?: boolean } = {}): Schema<RecordOf<X>> {
  const dict: Fields = {}
  for (const [key, field] of Object.entries(fields)) dict[key] = field.meta.required === false ? field : field.required()
  const schema = Schema.object(dict)
  if (options.open) openDicts.add(schema.dict!)
  return schema as unknown as Schema<RecordOf<X>>
}

/** A field that may be absent (or undefined, which JSON drops). */
export function optional<S, T>(schema: Schema<S, T>): Schema<S | undefined, T | undefined> {
  return schema.required(false) as Schema<S | undefined, T | undefined>
}

/** `schema` with a rule on top; schemastery's own validation runs the rule too. */
export function refine<S, T>(schema: Schema<S, T>, rule: Rule<T>): Schema<S, T> {
  const callback = (value: T) => {
    rule(value, (path, expected, got) => {
      throw new Schema.ValidationError(`${path || 'value'} must be ${expected}, got ${JSON.stringify(got)}`, {})
    })
    return value
  }
  rules.set(callback, rule)
  return Schema.transform(schema, callback as never) as unknown as Schema<S, T>
}

/** The rule `refine` put on a transform schema, if any. */
export function ruleOf(schema: AnySchema): Rule<unknown> | undefined {
  return schema.callback ? rules.get(schema.callback) : undefined
}

/** True for a record made with `open: true`. */
export function isOpenRecord(schema: AnySchema): boolean {
  return schema.dict !== undefined && openDicts.has(schema.dict)
}
