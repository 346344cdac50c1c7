import { resolve as resolvePath } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { ndJsonStream } from '@agentclientprotocol/sdk'
import { AppBootError, runMain, startApp } from 'dsh-app-boot'
import { MAX_MESSAGE_BYTES, limitLines } from './line-limit.ts'
import { VERSION } from './service.ts'
import { guardStdout } from './stdout-guard.ts'

const USAGE = 'usage: dsh-acp-demo [config.yml]\n'
  + '       dsh-acp-demo --help | --version\n'
  + '  Serves the Agent Client Protocol on stdin/stdout (newline-delimited JSON-RPC); logs go to stderr.\n'
  + '  config.yml     the app file; default: the cordis.yml shipped with the app\n'
  + '  -h, --help     print this text (on stderr) and exit\n'
  + '  -V, --version  print the version (on stdout) and exit\n'
  + '  DSH_LOG_LEVEL=silent|error|warn|info|debug (default info)\n'
  + '  XDG_STATE_HOME: sessions go to $XDG_STATE_HOME (default ~/.local/state)/dsh/sessions/<working folder key>/\n'
  + '                 unless the app file sets persistenceRoot\n'

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

runMain(async (stopWith) => {
  if (args.length > 1) throw new AppBootError('INVALID_OPTION', `expected at most one argument (the app file), got ${args.length}\n${USAGE}`)
  const file = args[0] === undefined ? fileURLToPath(new URL('../cordis.yml', import.meta.url)) : resolvePath(args[0])
  // serve as soon as the app plugin is up: `initialize` answers while tool sources still start, and
  // prompts wait for readiness (see AcpDemo.serve)
  const app = await startApp({ file, resolve: (name) => import.meta.resolve(name), frontDoor: { service: 'acpDemo', plugin: 'dsh-acp-demo' } })
  stopWith(app)
  const service = await app.whenProvided('acpDemo')
  if (!service) {
    await app.ready
    await app.dispose()
    throw new AppBootError('MISSING_SERVICE',
      `${file}: no entry runs the app plugin; add one like { id: app, name: dsh-acp-demo, config: { ... } }`)
  }
  let clientLeft = false
  let bootFailed = false
  process.stdin.once('end', () => { clientLeft = true })
  // a line over the limit is answered and dropped here: inside the SDK it would end the connection
  const input = (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>).pipeThrough(limitLines(MAX_MESSAGE_BYTES, (line) => {
    const response = service.refuseOversized(line, MAX_MESSAGE_BYTES)
    if (response) process.stdout.write(response)
  }))
  const stream = ndJsonStream(Writable.toWeb(process.stdout), input, { maxMessageBytes: MAX_MESSAGE_BYTES + 1 })
  const serving = service.serve(stream)
  // the editor closing stdin ends the app: flush the session logs and the last protocol bytes, then leave
  serving.closed.then(() => app.dispose()).then(drainStdout).then(() => { if (!bootFailed) process.exit(0) }, (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  })
  // a failed startup is one AppBootError on stderr and exit 1, even after `initialize` was answered; an
  // editor that leaves while the app starts just ends it
  try {
    await app.ready
  } catch (error) {
    if (clientLeft) return app
    bootFailed = true
    throw error
  }
  return app
})
