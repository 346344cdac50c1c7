import { Context } from 'cordis'
import AgentSpine from 'dsh-agent-spine-demo'
import { renderPrompt } from 'dsh-system-prompt'
import { Session } from 'dsh-session'
const ctx = new Context()
await ctx.plugin(AgentSpine, { persist: false } as any)
await ctx.plugin({ name: 'bench-tools', inject: ['tools'], apply(ctx: Context) {
  for (let i = 0; i < 200; i++) ctx.tools.register({ name: `tool_${i}`, description: `B ${i}.`, parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } }, execute: () => 'ok' })
} })
const t = async (label: string, f: () => unknown, n = 3000) => { for (let i = 0; i < 300; i++) await f(); const s = performance.now(); for (let i = 0; i < n; i++) await f(); console.log(label.padEnd(20), ((performance.now() - s) / n * 1000).toFixed(1), 'us') }
const agent = await ctx.agentLoop.createAgent({ id: 'a' })
for (let i = 0; i < 10; i++) await agent.prompt('x')
const s = agent.session
const a = await ctx.systemPrompt.assemble({ model: 'scripted-echo' })
await t('assemble', () => ctx.systemPrompt.assemble({ model: 'scripted-echo', cwd: '/', agentId: 'a' }))
await t('deferredNames', () => ctx.tools.deferredNames())
await t('messages+hist', () => { s.messages(); s.toolHistory() })
const ss = new Session('q')
await t('append x6', () => { for (let i = 0; i < 6; i++) ss.append('step/start', { turn: 1, step: 1 }) }, 1000)
const logged = s.requestHeader()!.data.header
await t('llm.generate', () => ctx.llm.generate({ model: 'scripted-echo', system: logged.system, tools: logged.tools as any, messages: s.messages() as any, toolHistory: s.toolHistory() }))
const tools = ctx.tools
await t('cached proxy call', () => tools.deferredNames())
const sp = ctx.systemPrompt
await t('sp.toolOrder', () => sp.toolOrder)
