import { Context, Service } from 'cordis'
import type { Harness } from 'dsh-harness'
import type { StdioDemoConfig } from './config.ts'

declare module 'cordis' {
  interface Context {
    stdioDemo: StdioDemo
  }
}

/**
 * What the front door (`main`) needs from a booted app, under the ctx key `stdioDemo`: the parsed config and
 * the harness (`ctx.harness`: agents, sessions, the prefix preview, models, notices). It never touches process streams.
 */
export class StdioDemo extends Service {
  static inject = ['harness']

  constructor(ctx: Context, public readonly config: StdioDemoConfig) {
    super(ctx, 'stdioDemo')
  }

  /** The harness the terminal front door runs on. */
  get harness(): Harness {
    return this.ctx.harness
  }
}

export default StdioDemo
