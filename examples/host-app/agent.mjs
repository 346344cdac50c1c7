// Boots app.yml with the Cordis loader (through dsh-app-boot) and answers one turn on the offline model.
import { fileURLToPath } from 'node:url'
import { boot } from 'dsh-app-boot'

const app = await boot({
  file: fileURLToPath(new URL('./app.yml', import.meta.url)),
  resolve: (name) => import.meta.resolve(name), // plugin names resolve from this app's node_modules
})
try {
  const agent = await app.ctx.agentLoop.createAgent({})
  const result = await agent.prompt(process.argv[2] ?? 'hi')
  console.log(result.text)
} finally {
  await app.dispose()
}
