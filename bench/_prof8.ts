import { Context } from 'cordis'
import { Session as Inspector } from 'node:inspector/promises'
import { writeFileSync } from 'node:fs'
import AgentSpine from 'dsh-agent-spine-demo'
const ctx = new Context()
await ctx.plugin(AgentSpine, { persist: false } as any)
await ctx.plugin({ name: 'bench-tools', inject: ['tools'], apply(ctx: Context) {
  for (let i = 0; i < 200; i++) ctx.tools.register({ name: `tool_${i}`, description: `B ${i}.`, parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } }, execute: () => 'ok' })
} })
const agents = []
for (let a = 0; a < 400; a++) { const agent = await ctx.agentLoop.createAgent({ id: 'a' + a }); await agent.prompt('x'); agents.push(agent) }
for (const agent of agents.slice(0, 50)) for (let k = 0; k < 5; k++) await agent.prompt('warm')
const ins = new Inspector(); ins.connect(); await ins.post('Profiler.enable'); await ins.post('Profiler.start')
let n = 0; const s = performance.now()
for (const agent of agents.slice(50)) for (let k = 0; k < 15; k++) { await agent.prompt('hello'); n++ }
console.log('steady us', ((performance.now() - s) / n * 1000).toFixed(1))
const { profile } = await ins.post('Profiler.stop'); writeFileSync('/tmp/steady.cpuprofile', JSON.stringify(profile))
