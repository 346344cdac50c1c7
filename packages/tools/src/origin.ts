import type { Context } from 'cordis'

/** Where a registered tool comes from: typed data recorded at registration, never read back from effect labels. */
export interface ToolOrigin {
  /** The Cordis name of the plugin that called `tools.register()` / `registerMany()`. */
  readonly plugin: string
  /** The app-file entry id that plugin runs under (itself or an ancestor); undefined outside an app file. */
  readonly entry: string | undefined
  /** The remote source the registering plugin named, e.g. the MCP server of a `dsh-tools-mcp` tool. */
  readonly server?: string
}

type Fiber = Context['fiber']

/**
 * The origin of each registering plugin, worked out once per fiber (a plugin registering thousands of
 * tools pays for it once) and shared, frozen, by all of its registrations without a server.
 */
export class Origins {
  private readonly byFiber = new WeakMap<Fiber, ToolOrigin>()

  of(fiber: Fiber, server: string | undefined): ToolOrigin {
    let origin = this.byFiber.get(fiber)
    if (!origin) this.byFiber.set(fiber, origin = Object.freeze({ plugin: fiber.name, entry: entryOf(fiber) }))
    return server === undefined ? origin : Object.freeze({ ...origin, server })
  }
}

/**
 * The app-file entry a fiber runs under. `@cordisjs/plugin-loader` (which `dsh-app-boot` boots app files
 * with) sets `fiber.entry` on the fibers it starts; a plugin started by another plugin has it on an ancestor.
 */
function entryOf(fiber: Fiber): string | undefined {
  let current: Fiber | undefined = fiber
  while (current) {
    const id = (current as { entry?: { id?: unknown } }).entry?.id
    if (typeof id === 'string') return id
    const parent: Fiber | undefined = current.parent?.fiber
    current = parent === current ? undefined : parent
  }
  return undefined
}
