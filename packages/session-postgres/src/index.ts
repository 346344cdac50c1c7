export { default } from './store.ts'
export type { PgStoreConfig } from './config.ts'
export { readSessionEvents } from './read.ts'
