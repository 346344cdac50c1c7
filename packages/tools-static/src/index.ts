export type { ToolsStaticConfig } from './plugin.ts'
export { default } from './plugin.ts'
