export { findPgBin, startTestCluster, type TestCluster } from './cluster.ts'
export { throwawaySchema } from './schema.ts'
