/**
 * What a caller passes for a plugin config `T` whose schema fills in defaults: every key optional, except
 * the keys `R` that have none. A plugin declares `static Config: Schema<ConfigInput<T>, T>`, so
 * `ctx.plugin(Plugin, { persona })` type-checks (Cordis reads the schema's input type) while the plugin
 * itself receives `T` with every default filled in.
 */
export type ConfigInput<T, R extends keyof T = never> = { [K in keyof T]?: T[K] } & { [K in R]-?: T[K] }
