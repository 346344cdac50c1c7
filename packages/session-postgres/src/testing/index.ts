export { findPgBin, startTestCluster, type TestCluster } from './cluster.ts'
