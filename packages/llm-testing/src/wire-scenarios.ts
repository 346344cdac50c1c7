import { COMPACTION_INSTRUCTION, type ChatMessage } from 'dsh-core'
import type { GenerateOptions, ToolUpdateMode } from 'dsh-llm'
import { sampleRequest, sampleTool } from './streams.ts'
import { toolChanges } from './tool-changes.ts'

/** One request an adapter's tests send, named, with whether its wire depends on the tool-update mode. */
export interface WireScenario {
  name: string
  request: GenerateOptions
  /** The request carries a tool change, so each projection mode sends it differently. */
  toolChange: boolean
}

const roundTrip: ChatMessage[] = [
  { role: 'user', text: 'read a.txt' },
  { role: 'assistant', text: 'Reading it.', toolCalls: [{ id: 'call_1', name: 'read', arguments: { input: 'a.txt' } }] },
  { role: 'tool', id: 'call_1', name: 'read', output: 'the contents', isError: false },
]

const parallel: ChatMessage[] = [
  { role: 'user', text: 'read both' },
  { role: 'assistant', text: '', toolCalls: [{ id: 'call_a', name: 'read', arguments: { input: 'a' } }, { id: 'call_b', name: 'write', arguments: { input: 'b' } }] },
  { role: 'tool', id: 'call_a', name: 'read', output: 'a', isError: false },
  { role: 'tool', id: 'call_b', name: 'write', output: 'no such file', isError: true },
]

/** A conversation of `turns` user/assistant exchanges and a last question: more content blocks than Anthropic's 20-block lookback. */
function longConversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = []
  for (let turn = 0; turn < turns; turn++) messages.push({ role: 'user', text: `question ${turn}` }, { role: 'assistant', text: `answer ${turn}`, toolCalls: [] })
  messages.push({ role: 'user', text: 'one more question' })
  return messages
}

/**
 * The requests the adapter tests send, for checks that every wire body an adapter builds is one its
 * provider's API accepts: text turns with and without tools and system prompt, tool calls and results,
 * deferred tools, tool additions and removals, a compaction request and a conversation longer than the
 * cache lookback.
 */
export function wireScenarios(model: string): WireScenario[] {
  const plain = (name: string, request: GenerateOptions): WireScenario => ({ name, request, toolChange: false })
  const change = (name: string, request: GenerateOptions): WireScenario => ({ name, request, toolChange: true })
  return [
    plain('text turn', sampleRequest({ model })),
    plain('no tools', sampleRequest({ model, tools: [] })),
    plain('no system prompt', sampleRequest({ model, system: '' })),
    plain('max tokens', sampleRequest({ model, maxTokens: 256 })),
    plain('tool round trip', sampleRequest({ model, messages: roundTrip })),
    plain('parallel calls with an error result', sampleRequest({ model, messages: parallel })),
    plain('deferred tool', sampleRequest({ model, tools: [sampleTool('read'), sampleTool('write')], deferredTools: ['write'] })),
    plain('compaction request', sampleRequest({ model, messages: [...roundTrip, { role: 'assistant', text: 'Done.', toolCalls: [] }, { role: 'user', text: COMPACTION_INSTRUCTION }] })),
    plain('long conversation', sampleRequest({ model, messages: longConversation(15) })),
    change('before addition', toolChanges.beforeAddition(model)),
    change('after addition', toolChanges.afterAddition(model)),
    change('before removal', toolChanges.beforeRemoval(model)),
    change('after removal', toolChanges.afterRemoval(model)),
    // a request of a sequence: routes whose provider compares requests itself (Anthropic's cache diagnostics) name the previous response
    plain('first request of a sequence', sampleRequest({ model, previousResponseId: null })),
    plain('later request of a sequence', sampleRequest({ model, messages: roundTrip, previousResponseId: 'msg_01SequencePrevious' })),
    change('after addition, later in a sequence', { ...toolChanges.afterAddition(model), previousResponseId: 'msg_01SequencePrevious' }),
  ]
}

/** The scenarios to send under `mode`: all of them under the entry's default mode, the tool changes under the others. */
export function scenariosFor(model: string, mode: ToolUpdateMode, isDefault: boolean): WireScenario[] {
  return wireScenarios(model).filter((scenario) => isDefault || scenario.toolChange).map((scenario) => ({ ...scenario, name: `${scenario.name} (${mode})` }))
}
