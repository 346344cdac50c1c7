import { messageOf, oneLine, type ToolSchema } from 'dsh-core'
import type { Agent, AgentUpdate, Harness, NoticeLocale } from 'dsh-harness'
import type { StdioDemo } from './service.ts'

/**
 * What a command line leads to: text to print (and a `note` about it, which piped input sends to stderr), the
 * line that says why it failed, or the end of the session.
 */
export type CommandResult = { text: string; note?: string } | { error: string } | { exit: true }

/** What a long-running command (`/side`) hears from the door: Ctrl-C, and where its live activity goes. */
export interface CommandOptions {
  signal?: AbortSignal
  onUpdate?: (update: AgentUpdate) => void
}

export const HELP = [
  '/tools              the tools of the next request, in the order the model sees them',
  '/prompt             the system prompt of the next request',
  '/compact            replace the conversation so far with a summary (keeps the cached prefix)',
  '/side QUESTION      ask about the conversation in a side session; the main history (and its cached prefix) is untouched',
  '/model [NAME]       list the configured models, or switch to NAME (logged; the next request header says why)',
  '/call NAME {json}   (offline scripted model) ask the model to call tool NAME with these arguments',
  '/help               this list',
  '/exit               leave (Ctrl-D works too)',
  'Anything else is sent to the model.',
].join('\n')

/**
 * Runs `/tools`, `/prompt`, `/compact`, `/help` or `/exit`; returns undefined for any other line, which is a prompt
 * (other slash lines, like the scripted model's `/call`, belong to the model). A failing command gives its
 * `error: …` line, for piped and interactive input alike.
 */
export async function runCommand(line: string, demo: StdioDemo, agent: Agent, options: CommandOptions = {}): Promise<CommandResult | undefined> {
  try {
    return await dispatch(line, demo, agent, options)
  } catch (error) {
    return { error: `error: ${messageOf(error)}` }
  }
}

async function dispatch(line: string, demo: StdioDemo, agent: Agent, options: CommandOptions): Promise<CommandResult | undefined> {
  const model = /^\/model(?:\s+(\S+))?\s*$/.exec(line.trim())
  if (model) return { text: await modelCommand(demo, agent, model[1]) }
  const side = /^\/side(?:\s+([^]*))?$/.exec(line.trim())
  if (side) return sideCommand(demo, agent, side[1] ?? '', options)
  switch (line.trim()) {
    case '/tools': return { text: formatToolList(await demo.harness.tools(agent)) }
    case '/prompt': return { text: await demo.harness.systemPrompt(agent) }
    case '/compact': return { text: await compactNow(agent) }
    case '/help': return { text: HELP }
    case '/exit': return { exit: true }
    default: return undefined
  }
}

/**
 * `/model`: the served models, the current one marked; `/model NAME`: switches to it (an unknown name throws,
 * listing them), and says so once the logged switch survives the process (a refusing store throws).
 */
async function modelCommand(demo: StdioDemo, agent: Agent, wanted: string | undefined): Promise<string> {
  const models = demo.harness.models()
  if (wanted === undefined) return ['models (* = current):', ...models.map((model) => `${model === agent.model ? '*' : ' '} ${model}`)].join('\n')
  const from = agent.model
  if (wanted === from) return `model: ${from} (already)`
  agent.switchModel(wanted)
  await agent.session.written()
  return `model: ${from} → ${wanted} (logged; the next request header gives reason "model")`
}

/**
 * `/side QUESTION`: the answer of a side session forked from this one (`harness.side`), and a note naming that
 * session. A missing question, a failed or cancelled answer is an error line; the main history is untouched.
 */
async function sideCommand(demo: StdioDemo, agent: Agent, question: string, options: CommandOptions): Promise<CommandResult> {
  if (!/\S/.test(question)) return { error: 'error: /side needs a question, e.g. "/side what does this function return?"; the main conversation is not touched' }
  const answer = await demo.harness.side(agent.id, question, options)
  if (answer.reason === 'cancelled') return { error: `(side question cancelled; its session ${answer.child} is kept, the main conversation is untouched)` }
  if (answer.reason !== 'done') return { error: `error: side question failed (session ${answer.child}): ${oneLine(answer.error ?? answer.reason)}` }
  return { text: answer.text, note: `(side answer from session ${answer.child}; the main conversation is untouched)` }
}

/** Compacts the session; a failure throws, so it is reported like any failed command. */
async function compactNow(agent: Agent): Promise<string> {
  const outcome = await agent.compact()
  if (!outcome.ok) throw new Error(`compaction failed: ${outcome.error}`)
  return `compacted: the conversation through event ${outcome.throughSeq} is now a summary of ${outcome.summary.length} characters`
}

/** A count line, then one numbered line per tool. */
export function formatToolList(tools: readonly ToolSchema[]): string {
  if (tools.length === 0) return 'no tools'
  const head = `${tools.length} ${tools.length === 1 ? 'tool' : 'tools'} in request order:`
  return [head, ...tools.map((tool, index) => `${index + 1}. ${tool.name} — ${oneLine(tool.description, 100)}`)].join('\n')
}

/** The line shown for a tool call, a tool result or a tool-list change, or undefined for other updates. */
export function formatActivity(update: AgentUpdate, harness: Harness, locale: NoticeLocale = harness.noticeLocale()): string | undefined {
  if (update.type === 'tool-call') return `→ ${update.name} ${JSON.stringify(update.arguments)}`
  if (update.type === 'tool-result') return `← ${update.isError ? '(error) ' : ''}${oneLine(update.output, 200)}`
  // the context notice of the developer message the loop logged: the model is told at this step
  if (update.type === 'tools-changed') return `(${harness.toolChangeNotice(update, locale)})`
  return undefined
}

