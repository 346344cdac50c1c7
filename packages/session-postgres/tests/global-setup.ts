import type { TestProject } from 'vitest/node'
import { startTestCluster } from '../src/testing/index.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string
  }
}

/** One PostgreSQL server for every *.pg.spec.ts of the run. */
export default async function setup(project: TestProject) {
  const cluster = await startTestCluster()
  if (!cluster) {
    throw new Error('these tests need PostgreSQL: install the server (Debian: apt-get install -y postgresql) '
      + 'or set DSH_TEST_PG_URL to a postgres:// URL of a database the tests may create schemas in')
  }
  project.provide('pgUrl', cluster.url)
  return () => cluster.stop()
}
