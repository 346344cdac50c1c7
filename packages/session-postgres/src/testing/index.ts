export { findPgBin, startTestCluster } from './cluster.ts'
export { storedEvents, throwawaySchema } from './schema.ts'
