export { findPgBin, startTestCluster, type TestCluster } from './cluster.ts'
export { storedEvents, throwawaySchema } from './schema.ts'
export { type Outage, startOutage } from './outage.ts'
