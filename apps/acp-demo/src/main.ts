import { resolve as resolvePath } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { ndJsonStream } from '@agentclientprotocol/sdk'
import { BootError, boot, runMain } from 'dsh-app-boot'
import { VERSION } from './service.ts'
import { guardStdout } from './stdout-guard.ts'

const USAGE = 'usage: dsh-acp-demo [config.yml]\n'
  + '       dsh-acp-demo --help | --version\n'
  + '  Serves the Agent Client Protocol on stdin/stdout (newline-delimited JSON-RPC); logs go to stderr.\n'
  + '  config.yml     the app file; default: the cordis.yml shipped with the app\n'
  + '  -h, --help     print this text (on stderr) and exit\n'
  + '  -V, --version  print the version (on stdout) and exit\n'
  + '  DSH_LOG_LEVEL=silent|error|warn|info|debug (default info)\n'

guardStdout()
const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  process.stderr.write(USAGE)
  process.exit(0)
}
if (args.includes('--version') || args.includes('-V')) {
  process.stdout.write(`dsh-acp-demo ${VERSION}\n`)
  process.exit(0)
}

// stdout is asynchronous on some platforms' pipes; an empty write calls back once everything before it is out
function drainStdout(): Promise<void> {
  return new Promise((resolve) => process.stdout.write('', () => resolve()))
}

runMain(async () => {
  if (args.length > 1) throw new BootError('INVALID_OPTION', `expected at most one argument (the app file), got ${args.length}\n${USAGE}`)
  const file = args[0] === undefined ? fileURLToPath(new URL('../cordis.yml', import.meta.url)) : resolvePath(args[0])
  const app = await boot({ file, resolve: (name) => import.meta.resolve(name) })
  const service = app.ctx.get('acpDemo')
  if (!service) {
    await app.dispose()
    throw new BootError('MISSING_SERVICE',
      `${file}: no entry runs the app plugin; add one like { id: app, name: dsh-acp-demo, config: { ... } }`)
  }
  const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>)
  const serving = service.serve(stream)
  // the editor closing stdin ends the app: flush the session logs and the last protocol bytes, then leave
  serving.closed.then(() => app.dispose()).then(drainStdout).then(() => process.exit(0), (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  })
  return app
})
