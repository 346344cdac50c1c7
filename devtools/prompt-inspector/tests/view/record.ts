import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import ScriptedLlm from 'dsh-llm-scripted'
import PromptCache from 'dsh-cache-break-detector'
import ToolsStatic from 'dsh-tools-static'
import { tempDir } from '../setup.ts'

/** A prompt whose text would end the page's script or style element if it were not escaped. */
export const HOSTILE_PROMPT = 'show me </style><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> please'

/** A section added mid-session; its text would end the page's style or script element if it were not escaped. */
export const NOTES_SECTION = 'Notes: answer in one line. </style><script>window.__pwned = 3</script>'

const usage = (inputTokens: number, cacheReadTokens: number) => ({ inputTokens, outputTokens: 5, cacheReadTokens, cacheWriteTokens: inputTokens - cacheReadTokens })

// One response per model call, in order; the cache figures make the detector see each kind of break.
const FIRST_RUN = [
  { toolCalls: [{ name: 'alpha', arguments: { path: 'a.txt' } }], usage: usage(6000, 0) },
  { text: 'read it', usage: usage(6300, 6000) },
  { text: 'now with beta', usage: usage(6600, 0) }, // tool beta added: tools_schema_changed
  { text: 'plain', usage: usage(6800, 6600) },
  { text: 'noted', usage: usage(7100, 0) }, // a section added: system_changed
  { text: 'escaped?', usage: usage(7400, 7100) },
  { error: 'upstream overloaded' }, // a failed turn
  { text: 'summary: the user read a.txt and asked about beta.', usage: usage(7600, 7100) }, // the compaction call
  { text: 'after compaction', usage: usage(1500, 0) },
  { text: 'warm', usage: usage(1800, 1500) },
  { text: 'cold again', usage: usage(2100, 0) }, // nothing changed: likely_provider_ttl_or_eviction
]
const SECOND_RUN = [{ text: 'resumed', usage: usage(2400, 0) }]

/**
 * Records a real session with every kind of row and marker the viewer shows: the spine, dsh-tools-static,
 * the detector and the scripted model in script mode, in a real Context writing real JSONL. Then a second
 * process-like run resumes it. Returns the log's path.
 */
export async function recordRichSession(options: { price?: object } = {}): Promise<{ file: string; root: string }> {
  const root = await tempDir()
  await writeFile(join(root, 'first.json'), JSON.stringify({ responses: FIRST_RUN }))
  await writeFile(join(root, 'second.json'), JSON.stringify({ responses: SECOND_RUN }))
  const first = await open(root, join(root, 'first.json'), options.price)
  const agent = await first.ctx.agentLoop.createAgent({ id: 'rich' })
  await agent.prompt('/call alpha')
  const beta = await first.ctx.plugin(ToolsStatic, { tools: [{ name: 'beta', description: 'Beta things.', result: 'b', delayMs: 0 }] } as any)
  await agent.prompt('use beta')
  await agent.prompt('plain question')
  first.ctx.systemPrompt.section({ name: 'deployment:notes', order: 10, text: NOTES_SECTION })
  await agent.prompt('with notes')
  await agent.prompt(HOSTILE_PROMPT)
  await agent.prompt('this one fails')
  const compacted = await agent.compact()
  if (!compacted.ok) throw new Error(`compaction failed: ${compacted.error}`)
  await agent.prompt('after compaction')
  await agent.prompt('warm')
  await agent.prompt('cold')
  await agent.session.flushed()
  await beta.dispose()
  await first.dispose()
  // a second run over the same folder resumes the session: a `resume` header
  const second = await open(root, join(root, 'second.json'), options.price)
  const again = await second.ctx.agentLoop.createAgent({ id: 'rich' })
  await again.prompt('back again')
  await again.session.flushed()
  await second.dispose()
  return { file: join(root, 'rich.jsonl'), root }
}

async function open(root: string, script: string, price?: object) {
  const ctx = new Context()
  const fibers = [
    await ctx.plugin(AgentSpine, { persistenceRoot: root, model: 'cache-model', cwd: '/srv/project', persona: 'You review code.' } as any),
    await ctx.plugin(ScriptedLlm, { models: [price ? { id: 'cache-model', price } : 'cache-model'], script } as any),
    await ctx.plugin(ToolsStatic, { tools: [{ name: 'alpha', description: 'Read a file.', result: 'alpha says hi', delayMs: 0 }] } as any),
    await ctx.plugin(PromptCache, {} as any),
  ]
  return { ctx, dispose: async () => { for (const fiber of fibers.reverse()) await fiber.dispose() } }
}
