export { default, name } from './plugin.ts'
export { Config, spineConfig } from './config.ts'
export type { StdioDemoConfig } from './config.ts'
export { StdioDemo } from './service.ts'
