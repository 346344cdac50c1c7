import { Context } from 'cordis'
import AgentSpine from 'dsh-agent-spine-demo'
const ctx = new Context()
await ctx.plugin(AgentSpine, { persist: false } as any)
await ctx.plugin({ name: 'bench-tools', inject: ['tools'], apply(ctx: Context) {
  for (let i = 0; i < 200; i++) ctx.tools.register({ name: `tool_${i}`, description: `B ${i}.`, parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } }, execute: () => 'ok' })
} })
const agent = await ctx.agentLoop.createAgent({ id: 'b' })
for (let k = 0; k < 300; k++) { await agent.prompt('hello') }
const s = performance.now(); for (let k = 0; k < 600; k++) { await agent.prompt('hello') } console.log('same-agent step ms', (performance.now() - s) / 600)
const a = performance.now(); for (let k = 0; k < 600; k++) await ctx.systemPrompt.assemble({ model: 'scripted-echo' }); console.log('assemble ms', (performance.now() - a) / 600)
