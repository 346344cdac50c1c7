import { defineConfig } from 'vitest/config'

export default defineConfig({
  // workspace packages export `source` (src/*.ts) next to their built dist/: tests run the sources
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['packages/*/tests/**/*.spec.ts', 'apps/*/tests/**/*.spec.ts', 'tests/**/*.spec.ts'],
    globalSetup: ['.ci/vitest-build.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    server: { deps: { inline: ['@cordisjs/plugin-loader'] } },
  },
})
