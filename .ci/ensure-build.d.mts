/** Folders of the packages `tsconfig.build.json` builds. */
export function builtPackages(root: string): string[]
/** Package folders whose dist is missing or older than their sources, their tsconfig or a shared tsconfig. */
export function staleBuilds(root: string): string[]
/** Runs `tsc -b` when any package is stale; returns false (after printing why) when the build fails. */
export function ensureBuild(root: string): boolean
