import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
const N = Number(process.argv[2] ?? 10000)
const ctx = new Context()
await ctx.plugin(SystemPrompt, {} as any)
await ctx.plugin(ToolRuntime, {} as any)
const mk = (i: number) => ({ name: `tool_${i}`, description: `Tool ${i}`, parameters: { type: 'object', properties: { path: { type: 'string', description: 'p' + i }, limit: { type: 'integer', minimum: 1 }, mode: { type: 'string', enum: ['a', 'b'] } }, required: ['path'] }, execute: () => 'ok' })
const defs = Array.from({ length: N }, (_, i) => mk(i))
const { Session } = await import('node:inspector/promises')
const ss = new Session(); ss.connect()
await ss.post('Profiler.enable'); await ss.post('Profiler.start')
const rss0 = process.memoryUsage().rss
let t = performance.now()
await ctx.plugin({ name: 'x', inject: ['tools'], apply(ctx: Context) { const t0 = performance.now(); for (const d of defs) ctx.tools.register(d); console.log("sync", performance.now() - t0) } })
const reg = performance.now() - t
t = performance.now()
await ctx.systemPrompt.assemble()
const asm = performance.now() - t
console.log({ reg, asm, ratio: reg / asm, rss: (process.memoryUsage().rss - rss0) / 1e6 })
const { profile } = await ss.post('Profiler.stop') as any
const self = new Map<string, number>()
const dt = profile.timeDeltas; const byId = new Map(profile.nodes.map((n: any) => [n.id, n]))
profile.samples.forEach((id: number, i: number) => { const n: any = byId.get(id); const k = `${n.callFrame.functionName} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + dt[i]) })
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${(v / 1000).toFixed(0)}ms ${k}`).join('\n'))
