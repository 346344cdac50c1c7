/** The key Cordis stores a service's own object under on its tracing proxy (`symbols.original`). */
const ORIGINAL = Symbol.for('cordis.original')

/**
 * The service object itself. Called through a context (`ctx.llm.x()`), `this` is a Cordis tracing proxy
 * on which every property read costs microseconds; per-request paths read from the raw object.
 * A plain object comes back as it is.
 */
export function rawService<T extends object>(service: T): T {
  return (service as { [ORIGINAL]?: T })[ORIGINAL] ?? service
}
