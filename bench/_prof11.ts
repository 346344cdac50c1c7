import { Session } from 'dsh-session'
import { deepFreeze } from 'dsh-llm'
const t = (label: string, f: () => unknown, n = 100000) => { for (let i = 0; i < 5000; i++) f(); const s = performance.now(); for (let i = 0; i < n; i++) f(); console.log(label.padEnd(24), ((performance.now() - s) / n * 1000).toFixed(2), 'us') }
let ss = new Session('q'); let k = 0
t('append', () => { if (++k % 1000 === 0) ss = new Session('q' + k); ss.append('step/start', { turn: 1, step: 1 }) })
t('date', () => new Date().toISOString())
t('stringify+parse', () => JSON.parse(JSON.stringify({ seq: 1, time: '2026-11-30T06:00:00.000Z', type: 'step/start', data: { turn: 1, step: 1 } })))
t('freeze', () => deepFreeze({ seq: 1, time: 'x', type: 'step/start', data: { turn: 1, step: 1 } }))
