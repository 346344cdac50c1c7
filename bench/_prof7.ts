import { Context } from 'cordis'
const ctx = new Context()
ctx.on('x/y' as any, () => {})
const t = (label: string, f: () => unknown, n = 50000) => { for (let i = 0; i < 2000; i++) f(); const s = performance.now(); for (let i = 0; i < n; i++) f(); console.log(label.padEnd(24), ((performance.now() - s) / n * 1000).toFixed(2), 'us') }
t('ctx.emit', () => ctx.emit('x/y' as any))
const emit = ctx.emit
t('cached ctx.emit', () => emit('x/y' as any))
const events = ctx.events
t('events.emit(ctx,..)', () => events.emit(ctx, 'x/y'))
const ev: any = (ctx.events as any)[Symbol.for('cordis.original')] ?? ctx.events
t('get ctx.events', () => ctx.events)
