// A plain Cordis app that uses DSH's system-prompt service. Node 20 cannot run .ts files:
// `npx tsc -p .` compiles it to out/host.js (tsconfig.json here), then `node out/host.js`.
import { Context, Service } from 'cordis'
import SystemPrompt, { TOOL_ORDER_REST, type ToolSchema } from 'dsh-system-prompt'
import { renderPrompt } from 'dsh-system-prompt/bytes'

const tool = (name: string, description: string): ToolSchema => ({ name, description, parameters: { type: 'object', properties: {} } })

const ctx = new Context()
await ctx.plugin(SystemPrompt, { persona: 'You review TypeScript.', toolOrder: ['read', TOOL_ORDER_REST, 'write'] })
ctx.systemPrompt.section({ name: 'repo:rules', order: 10, text: 'Keep answers short.' })
// a provider that registers in another order than the model sees
ctx.systemPrompt.tools(() => ({ schemas: [tool('write', 'Write a file.'), tool('grep', 'Search files.'), tool('read', 'Read a file.')] }))

const assembly = await ctx.systemPrompt.assemble({ model: 'scripted-echo' })
console.log(assembly.tools.map((schema) => schema.name).join(' '))
console.log(renderPrompt(assembly).split('\n\n').length > 1 ? 'sections: ok' : 'sections: missing')
console.log(ctx.systemPrompt instanceof Service ? 'one cordis: ok' : 'one cordis: a second copy of cordis is loaded')
