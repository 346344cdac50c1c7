export type { StaticTool, ToolsStaticConfig } from './plugin.ts'
export { default } from './plugin.ts'
