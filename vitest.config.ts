import { defineConfig } from 'vitest/config'

// Specs named *.pg.spec.ts need a PostgreSQL server: they run in their own project, whose global setup
// starts one throwaway cluster per run (or uses DSH_TEST_PG_URL), and only when such a spec is selected.
const PG_SPECS = ['packages/*/tests/**/*.pg.spec.ts', 'apps/*/tests/**/*.pg.spec.ts', 'devtools/*/tests/**/*.pg.spec.ts', 'tests/**/*.pg.spec.ts', 'examples/tests/**/*.pg.spec.ts']

export default defineConfig({
  // workspace packages export `source` (src/*.ts) next to their built dist/: tests run the sources
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'] } },
  test: {
    globalSetup: ['.ci/vitest-build.mjs', '.ci/vitest-state.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // eventsource and eventsource-parser (imported by @modelcontextprotocol/sdk) export a `source` condition
    // of their own (.ts files); inlined with the SDK, vite transforms them instead of handing Node a .ts path.
    // The Cordis loader is listed by its alias and by its real folder name (pnpm links the alias to it): inlined,
    // its import() of a .ts plugin goes through vite
    server: { deps: { inline: ['cordisjs-plugin-loader', '@cordisjs/plugin-loader', '@modelcontextprotocol/sdk', 'eventsource', 'eventsource-parser'] } },
    projects: [
      {
        extends: true,
        test: {
          name: 'dsh',
          include: ['packages/*/tests/**/*.spec.ts', 'apps/*/tests/**/*.spec.ts', 'devtools/*/tests/**/*.spec.ts', 'tests/**/*.spec.ts', 'examples/tests/**/*.spec.ts'],
          exclude: ['**/node_modules/**', ...PG_SPECS],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: PG_SPECS,
          globalSetup: ['.ci/vitest-build.mjs', '.ci/vitest-state.mjs', 'packages/session-postgres/tests/global-setup.ts'],
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
