// What the loader needs: the plugin (it carries `name` and `Config`); the config type for a host that writes one.
export { default } from './plugin.ts'
