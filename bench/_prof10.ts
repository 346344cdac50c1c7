import { Context, Service } from 'cordis'
class Core { n = 0; bump() { return ++this.n } }
class S extends Service {
  core = new Core()
  data = 1
  constructor(ctx: Context) { super(ctx, 'svc') }
  method() { return 1 }
  methodUsingThis() { return this.data + this.data }
  viaCore() { return this.core.bump() }
}
declare module 'cordis' { interface Context { svc: S } }
const ctx = new Context()
await ctx.plugin(S)
const t = (label: string, f: () => unknown, n = 20000) => { for (let i = 0; i < 2000; i++) f(); const s = performance.now(); for (let i = 0; i < n; i++) f(); console.log(label.padEnd(24), ((performance.now() - s) / n * 1000).toFixed(2), 'us') }
const svc = ctx.svc
t('ctx.svc', () => ctx.svc)
t('svc.data', () => svc.data)
t('svc.core', () => svc.core)
t('svc.method()', () => svc.method())
t('svc.methodUsingThis()', () => svc.methodUsingThis())
t('svc.core.bump()', () => svc.core.bump())
t('svc.viaCore()', () => svc.viaCore())
import { symbols } from 'cordis'
class T extends Service {
  data = 1
  constructor(ctx: Context) { super(ctx, 'svc2') }
  fast() { const self: T = (this as any)[symbols.original] ?? this; return self.data + self.data + self.data + self.data }
  slow() { return this.data + this.data + this.data + this.data }
}
declare module 'cordis' { interface Context { svc2: T } }
await ctx.plugin(T)
const t2 = ctx.svc2
t('fast()', () => t2.fast())
t('slow()', () => t2.slow())
