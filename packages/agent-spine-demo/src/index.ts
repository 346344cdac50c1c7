// The design card's name for the harness: app files that say `dsh-agent-spine-demo` load dsh-harness's plugin
// (the plugin object carries `name` and `Config`).
export { default } from 'dsh-harness'
