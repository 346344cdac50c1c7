export { startTestCluster } from './cluster.ts'
export { storedEvents, throwawaySchema } from './schema.ts'
export { startOutage } from './outage.ts'
