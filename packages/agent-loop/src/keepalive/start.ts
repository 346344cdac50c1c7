import type { Context } from 'cordis'
import { rawService } from 'dsh-core'
import './events.ts'
import { Keepalive } from './watch.ts'

export type { Keepalive }

/** The loop's keepalive: it hears every request and every agent update, and its timers go with the loop. */
export function startKeepalive(ctx: Context): Keepalive {
  const keepalive = new Keepalive(rawService(ctx.llm), ctx.emit, ctx.logger('keepalive'))
  ctx.on('llm/request', (options) => keepalive.dispatched(options))
  ctx.on('agent/update', (agent, update) => keepalive.observe(agent, update))
  ctx.effect(() => () => keepalive.dispose(), 'agentLoop: keepalive timers')
  return keepalive
}
