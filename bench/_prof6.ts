import { Context } from 'cordis'
import AgentSpine from 'dsh-agent-spine-demo'
import { Session } from 'dsh-session'
import { renderPrompt } from 'dsh-system-prompt'
const ctx = new Context()
await ctx.plugin(AgentSpine, { persist: false } as any)
await ctx.plugin({ name: 'bench-tools', inject: ['tools'], apply(ctx: Context) {
  for (let i = 0; i < 200; i++) ctx.tools.register({ name: `tool_${i}`, description: `B ${i}.`, parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } }, execute: () => 'ok' })
} })
const t = async (label: string, f: () => unknown, n = 2000) => { for (let i = 0; i < 200; i++) await f(); const s = performance.now(); for (let i = 0; i < n; i++) await f(); console.log(label.padEnd(20), ((performance.now() - s) / n * 1000).toFixed(1), 'us') }
const sp = ctx.systemPrompt
const a = await sp.assemble({ model: 'scripted-echo' })
await t('assemble', () => sp.assemble({ model: 'scripted-echo' }))
await t('render', () => renderPrompt(a))
const s = new Session('x')
await t('append small', () => s.append('step/start', { turn: 1, step: 1 }), 20000)
await t('emit', () => ctx.emit('agent/update' as any, null, { type: 'text' }), 20000)
const msgs = [{ role: 'user', text: 'hi' }] as any
await t('llm.generate', () => ctx.llm.generate({ model: 'scripted-echo', system: 'x', tools: a.tools, messages: msgs }))
let agent = await ctx.agentLoop.createAgent({ id: 'z' }); let k = 0
await t('step', async () => { if (++k % 20 === 0) { agent = await ctx.agentLoop.createAgent({ id: 'z' + k }); await agent.prompt('x') } return agent.prompt('hello') }, 1000)
