import { fileURLToPath } from 'node:url'
import { BootError, runMain, startApp } from 'dsh-app-boot'
import { servePiped, type Streams } from './piped.ts'
import { serveRepl } from './repl.ts'
import { showStartup } from './startup.ts'
import type {} from './plugin.ts'

const USAGE = 'usage: dsh-stdio-demo [app.yml]   (default: the cordis.yml shipped with the app)\n'
const DEFAULT_FILE = fileURLToPath(new URL('../cordis.yml', import.meta.url))

runMain(async (stopWith) => {
  const args = process.argv.slice(2)
  if (args[0] === '-h' || args[0] === '--help') return void process.stdout.write(USAGE)
  if (args.length > 1) throw new BootError('INVALID_OPTION', `expected at most one app file, got ${args.length} arguments\n${USAGE}`)
  const file = args[0] ?? DEFAULT_FILE

  // the first turn is served only once the app is ready (every entry started, or the startup timeout passed)
  const app = await startApp({ file, resolve: (name) => import.meta.resolve(name) })
  stopWith(app) // a signal while it starts stops it at once
  const demo = await app.whenProvided('stdioDemo')
  if (process.stdin.isTTY && demo) await showStartup(process.stdout, demo.config.welcome, app)
  await app.ready
  if (!demo) {
    await app.dispose()
    throw new BootError('MISSING_SERVICE', `${file}: no enabled entry runs dsh-stdio-demo; add one, e.g. "- { id: app, name: dsh-stdio-demo }"`)
  }
  const agent = await demo.createAgent()
  const streams: Streams = { input: process.stdin, output: process.stdout, errors: process.stderr }
  const serve = process.stdin.isTTY ? serveRepl : servePiped
  serve(streams, demo, agent)
    .then(() => app.dispose())
    .then(() => process.exit(0), (error) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
      process.exit(1)
    })
  // a signal mid-turn: disposing the agent loop ends the running turn in its log before the store closes
  return app
})
