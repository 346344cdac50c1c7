/** Folders of the packages `tsconfig.build.json` builds. */
export function builtPackages(root: string): string[]
/** The folders whose JavaScript `.ci/bundle.mjs` writes (devtools/ keep tsc's file-by-file output). */
export function isBundled(root: string, folder: string): boolean
/** Package folders whose dist is missing or older than their sources, package.json, tsconfig or a shared tsconfig. */
export function staleBuilds(root: string): string[]
/** Runs `tsc -b` and the bundler when any package is stale; returns false (after printing why) when the build fails. */
export function ensureBuild(root: string): boolean
