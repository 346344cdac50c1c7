/** The workspace's packages by name, with their folders and manifests. */
export function workspacePackages(root: string): Map<string, { folder: string; manifest: Record<string, any> }>
/** The manifest as published: real ranges for workspace packages, no dev-only fields, no `source` condition. */
export function publishedManifest(manifest: Record<string, any>, byName: ReturnType<typeof workspacePackages>): Record<string, any>
/** Packs every publishable package into `dest` (default `.packs/`); returns the tarball paths by package name. */
export function packWorkspace(root: string, dest?: string): Map<string, string>
