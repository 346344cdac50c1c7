/** A tool `slow` that tells when it runs and returns only when the test releases it. */
export function gatedTool() {
  let started!: () => void
  let release!: (output: string) => void
  const running = new Promise<void>((resolve) => { started = resolve })
  const output = new Promise<string>((resolve) => { release = resolve })
  const plugin = {
    name: 'gated-tool', inject: ['tools'], apply: (ctx: any) => {
      ctx.tools.register({
        name: 'slow', description: 'waits for the test', parameters: { type: 'object' },
        execute: () => { started(); return output },
      })
    },
  }
  return { plugin, started: running, release: (text: string) => release(text) }
}
