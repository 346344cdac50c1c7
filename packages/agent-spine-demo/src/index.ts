// The design card's name for the harness: app files that say `dsh-agent-spine-demo` load dsh-harness's plugin.
export { default, Config, name } from 'dsh-harness'
export type { HarnessConfig as SpineConfig } from 'dsh-harness'
