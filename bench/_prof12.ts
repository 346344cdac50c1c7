import { Context } from 'cordis'
import AgentSpine from 'dsh-agent-spine-demo'
const ctx = new Context()
await ctx.plugin(AgentSpine, { persist: false } as any)
await ctx.plugin({ name: 'bench-tools', inject: ['tools'], apply(ctx: Context) {
  for (let i = 0; i < 200; i++) ctx.tools.register({ name: `tool_${i}`, description: `B ${i}.`, parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } }, execute: () => 'ok' })
} })
const agent = await ctx.agentLoop.createAgent({ id: 'a' })
for (let i = 0; i < 10; i++) await agent.prompt('x')
const s = agent.session
const logged = s.requestHeader()!.data.header
const llm = ctx.llm
const st = performance.now()
for (let i = 0; i < 20000; i++) await llm.generate({ model: 'scripted-echo', system: logged.system, tools: logged.tools as any, messages: s.messages() as any, toolHistory: s.toolHistory() })
console.log((performance.now() - st) / 20000 * 1000)
