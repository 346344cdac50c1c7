import Schema from 'schemastery'
import { optional, record, refine } from './event-schema.ts'

// The session log's schema, written once: the event map type (`SessionEventMap`), the validation at append
// and at load, and the README's list of events (tests/event-table.spec.ts) all come from `CORE_EVENTS`.

/** A count: a non-negative integer (turns, steps, tokens). */
export const count = Schema.natural()
/** The seq of a logged event. */
export const seqRef = Schema.natural().min(1).description('a positive integer (an event seq)')
export const text = Schema.string()
/** A name: a non-empty string. */
export const name = Schema.string().min(1)
/** Text a reader must see: at least one character that is not white space. */
export const visibleText = Schema.string().pattern(/\S/).description('a string with visible text')
export const flag = Schema.boolean()
/** Any JSON object. */
export const jsonObject: Schema<Record<string, any>> = Schema.dict(Schema.any())

export const headerReason = Schema.union(['initial', 'resume', 'change', 'model'])
export const compactionReason = Schema.union(['auto', 'manual'])
export const turnEndReason = Schema.union(['done', 'error', 'cancelled', 'step_limit'])
export const permissionDecider = Schema.union(['policy', 'session', 'user', 'unanswered', 'cancelled'])
export const permissionRule = Schema.union(['permissions.deny', 'permissions.allow', 'permissions.default', 'readOnlyHint'])
export const permissionAnswer = Schema.union(['allow-once', 'allow-always', 'deny'])
export const forkMode = Schema.union(['fork', 'fresh', 'side'])

const toolNames = Schema.array(name).description('an array of tool names')
const toolDefinition = record({ name, description: text, parameters: jsonObject }).description('a tool definition')
const toolCall = record({ id: text, name, arguments: jsonObject }).description('a tool call')
export const usage = record({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  /** The offline model's figures, from an emulated prompt cache. */
  emulated: optional(Schema.const(true).description('true or absent')),
}).description('a usage record')

/** Tool names are unique within the list. */
const toolList = refine(Schema.array(toolDefinition).description('an array of tool definitions'), (tools, problem) => {
  const seen = new Set<string>()
  tools.forEach((tool, i) => {
    if (seen.has(tool.name)) problem(`[${i}].name`, 'unique within the list (duplicate tool name)', tool.name)
    seen.add(tool.name)
  })
})

/** Deferred names are a non-empty list of declared tools, unique, in the tools' order (one spelling per set). */
export const requestHeader = refine(record({
  model: text,
  system: text,
  tools: toolList,
  deferredTools: optional(toolNames),
}).description('a request header'), ({ tools, deferredTools }, problem) => {
  if (deferredTools === undefined) return
  if (deferredTools.length === 0) problem('.deferredTools', 'absent or a non-empty list of tool names', deferredTools)
  const order = tools.map((tool) => tool.name)
  let last = -1
  deferredTools.forEach((name, i) => {
    const at = order.indexOf(name)
    if (at < 0) problem(`.deferredTools[${i}]`, 'the name of a tool in header.tools', name)
    if (at <= last) problem(`.deferredTools[${i}]`, 'unique and in header.tools order', name)
    last = at
  })
})

const turn = count
const step = count
/** An amount of US dollars: a number >= 0. */
const usd = Schema.number().min(0).description('a number of US dollars >= 0')

/** The core event types and their data (the order of `CORE_EVENT_TYPES` in messages). */
export const CORE_EVENTS = {
  'turn/start': record({ turn }),
  'step/start': record({ turn, step }),
  'user/message': record({ turn, text }),
  /**
   * The `user/message` at seq `messageSeq` (of this turn) was refused before any request carried it — the
   * request it would start did not fit the model's context window. It is not history: no later request
   * carries it, and the next turn goes on as if it had not been sent. The turn's `turn/end` says why.
   */
  'user/refused': record({ turn, messageSeq: seqRef }),
  'request/header': record({ turn, step, reason: headerReason, header: requestHeader }),
  /**
   * What the response of step `step` cost, in USD, at its model's price (`ctx.llm.cost` of dsh-llm): billed,
   * and with no cache; on a request a cache break hit, its `reason`, the `missedTokens` and what they cost over
   * a full hit. Logged after the `assistant/message` it prices (by dsh-cache-break-detector), only for a model
   * with a price. Core because its prefix is: the record is the shared one every money figure reads.
   */
  'request/cost': record({
    turn, step,
    model: name,
    billed: usd,
    noCache: usd,
    reason: optional(name),
    missedTokens: optional(count),
    breakCost: optional(usd),
    emulated: optional(Schema.const(true).description('true or absent')),
  }, { open: true }),
  /**
   * The agent's model was switched (say, `/model` in the REPL) after turn `turn`; the next header has reason
   * `model`.
   */
  'model/switch': record({ turn, from: name, to: name }),
  'developer/message': record({
    turn, step,
    source: Schema.union(['tool-registry']),
    added: toolNames,
    removed: toolNames,
    headerSeq: seqRef,
  }),
  'assistant/message': record({ turn, step, text, toolCalls: Schema.array(toolCall).description('an array of tool calls'), usage: optional(usage) }),
  'tool/call': record({ turn, step, id: text, name, arguments: jsonObject }),
  'tool/result': record({ turn, step, id: text, name, output: text, isError: flag }),
  'step/end': record({ turn, step }),
  'turn/end': record({ turn, reason: turnEndReason, error: optional(record({ message: text }).description('an error record')) }),
  /** Starts a new tool-history sequence at the next `request/header` (e.g. after compaction). */
  'sequence/reset': record({ reason: text }),
  /**
   * The model-facing history through seq `throughSeq` is replaced by `summary` (tool-registry messages of
   * that range excepted: the tools they announced stay declared). `step` is the step it ran before, 0
   * between turns; `usage` is the compaction call's. An empty summary would silently wipe the history it
   * replaces.
   */
  'context/compaction': record({ turn, step, reason: compactionReason, summary: visibleText, throughSeq: seqRef, usage: optional(usage) }),
  /**
   * The runtime context (date, working folder, git state…) changed: `text` reaches the model as a user-role
   * message after the cached prefix and replaces any earlier snapshot; `sections` are its named parts.
   */
  'context/snapshot': record({
    turn, step,
    text: visibleText,
    sections: Schema.array(record({ name, text }).description('a context section { name, text }')).description('an array of context sections'),
  }),
  /**
   * Whether the tool call `id` of this step may run, decided after its `tool/call` and before its
   * `tool/result` (a denied call's result is an error). `rule` and `pattern` say which policy key decided
   * (`by: 'policy'`), `answer` what the person chose (`by: 'user'`); an `allow-always` answer is remembered
   * for the tool for the rest of the session, a resumed one included.
   */
  'permission/decision': record({
    turn, step,
    id: text,
    name,
    decision: Schema.union(['allow', 'deny']),
    by: permissionDecider,
    rule: optional(permissionRule),
    pattern: optional(name),
    answer: optional(permissionAnswer),
  }),
  /**
   * In a parent's log: turn `turn` started the child session `child` (`<parent id>~<n>`, `dsh-agent-loop`'s
   * `agent.fork()`); `call` is the parent's `agent` tool call that asked for it, absent for a side question.
   */
  'fork/child': record({ turn, child: name, mode: forkMode, description: visibleText, call: optional(text) }),
  /**
   * The first event of a child's log: it was forked from session `parent`. With mode `fork` or `side` the
   * parent's history follows, copied (`copied` events; seq references shifted), so the child's log alone
   * rebuilds its requests; `fresh` copies nothing.
   */
  'fork/parent': record({ parent: name, mode: forkMode, description: visibleText, call: optional(text), copied: count }),
}
