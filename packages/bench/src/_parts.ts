import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
const N = Number(process.argv[2])
const ctx = new Context()
await ctx.plugin(SystemPrompt, {} as any)
const { Session } = await import('node:inspector/promises')
const s = new Session(); s.connect()
await s.post('Profiler.enable'); await s.post('Profiler.start')
await ctx.plugin({ name: 'x', apply(ctx: Context) { const t0 = performance.now(); for (let i = 0; i < N; i++) ctx.effect(() => () => {}, 'x' + i); console.log('effects', performance.now() - t0) } })
const { profile } = await s.post('Profiler.stop') as any
const self = new Map<string, number>()
const dt = profile.timeDeltas; const byId = new Map(profile.nodes.map((n: any) => [n.id, n]))
profile.samples.forEach((id: number, i: number) => { const n: any = byId.get(id); const k = `${n.callFrame.functionName} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + dt[i]) })
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${(v / 1000).toFixed(0)}ms ${k}`).join('\n'))
