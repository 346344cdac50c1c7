export { Config, StdioDemo, apply, name, spineConfig } from './plugin.ts'
export type { StdioDemoConfig } from './plugin.ts'
export { default } from './plugin.ts'
