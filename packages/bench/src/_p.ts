import { run } from './register.ts'
const { Session } = await import('node:inspector/promises')
const s = new Session(); s.connect()
await s.post('Profiler.enable'); await s.post('Profiler.start')
console.log(await run())
const { profile } = await s.post('Profiler.stop') as any
const self = new Map<string, number>()
const dt = profile.timeDeltas; const byId = new Map(profile.nodes.map((n: any) => [n.id, n]))
profile.samples.forEach((id: number, i: number) => { const n: any = byId.get(id); const k = `${n.callFrame.functionName} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + dt[i]) })
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / 1000).toFixed(0)}ms ${k}`).join('\n'))
