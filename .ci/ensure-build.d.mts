/** Folders of the packages `tsconfig.build.json` builds. */
export function builtPackages(root: string): string[]
/** Whether `.ci/bundle.mjs` writes the folder's JavaScript (its tsconfig.json does not turn `emitDeclarationOnly` off). */
export function isBundled(folder: string): boolean
/** Package folders whose dist is missing or older than their sources, package.json, tsconfig, a shared tsconfig or the bundler. */
export function staleBuilds(root: string): string[]
/** Runs `tsc -b` and the bundler when any package is stale; returns false (after printing why) when the build fails. */
export function ensureBuild(root: string): boolean
