import { homedir, tmpdir } from 'node:os'

/** One session log line: `{ seq, time, type, data }`. */
export interface LogEvent {
  seq: number
  time: string
  type: string
  data: any
}

/** Placeholder strings that stand for the request-header bulk in every unpinned fixture. */
export const SYSTEM_PLACEHOLDER = '{{system}}'
export const TOOLS_PLACEHOLDER = '{{tools}}'

export interface NormalizeOptions {
  /** Session ids in creation order; they become `<session-1>`, `<session-2>`, … wherever they occur. */
  sessionIds: readonly string[]
  /** The app's working directory (`<cwd>`); the repository root, temp dir and home get their own names. */
  cwd: string
  repoRoot: string
  /** Literal secret values (API keys read from the environment) that must never reach a fixture. */
  secrets?: readonly string[]
}

const DURATION_KEY = /(duration|elapsed|latency)(Ms|Seconds)?$/i
// Key-shaped strings are redacted even when nobody told us their value.
const KEY_SHAPES: [RegExp, string][] = [
  [/Bearer\s+[A-Za-z0-9._~+/-]*[A-Za-z0-9_~+/-]=*/g, '<redacted>'],
  [/sk-[A-Za-z0-9_-]{16,}/g, '<redacted>'],
]

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Scrubs what changes from run to run and keeps everything else byte for byte. Placeholders are given by
 * first appearance, never derived from `seq`, so inserting an event does not renumber the rest. One
 * normalizer serves both files of a run, so a tool-call id maps to the same placeholder in each.
 */
export class Normalizer {
  private readonly callIds = new Map<string, string>()
  private readonly replacements: [RegExp, string][] = []

  constructor(options: NormalizeOptions) {
    // key shapes first: a bearer token is redacted together with its "Bearer " prefix
    this.replacements.push(...KEY_SHAPES)
    for (const secret of options.secrets ?? []) {
      if (secret) this.replacements.push([new RegExp(escapeRegExp(secret), 'g'), '<redacted>'])
    }
    options.sessionIds.forEach((id, index) => {
      this.replacements.push([new RegExp(escapeRegExp(id), 'g'), `<session-${index + 1}>`])
    })
    const paths: [string, string][] = [
      [options.cwd, '<cwd>'],
      [options.repoRoot, '<repo>'],
      [tmpdir(), '<tmp>'],
      [homedir(), '<home>'],
    ]
    // longest first: the cwd usually lies inside the temp dir, the repository inside home
    paths.sort((a, b) => b[0].length - a[0].length)
    for (const [path, name] of paths) {
      if (path.length > 1) this.replacements.push([new RegExp(`${escapeRegExp(path)}(?![\\w.-])`, 'g'), name])
    }
  }

  /** `<call-N>` for a tool-call id, numbered by first appearance. */
  callId(id: string): string {
    let name = this.callIds.get(id)
    if (!name) this.callIds.set(id, name = `<call-${this.callIds.size + 1}>`)
    return name
  }

  /** A deep copy with times, durations, ids, paths and secrets scrubbed. */
  scrub(value: unknown, key?: string): unknown {
    if (key === 'time' && typeof value === 'string') return '<time>'
    if (key !== undefined && DURATION_KEY.test(key) && typeof value === 'number') return '<duration>'
    if (typeof value === 'string') return this.text(value)
    if (Array.isArray(value)) return value.map((item) => this.scrub(item))
    if (value !== null && typeof value === 'object') {
      const result: Record<string, unknown> = {}
      for (const [name, item] of Object.entries(value)) result[name] = this.scrub(item, name)
      return result
    }
    return value
  }

  private text(value: string): string {
    let result = value
    for (const [pattern, replacement] of this.replacements) result = result.replace(pattern, replacement)
    return result
  }

  /**
   * The session log as fixture lines. `pinHeader` keeps the request header's `system` and `tools`;
   * otherwise they become `{{system}}` / `{{tools}}`, so prompt edits churn only the pinned fixture.
   */
  session(events: readonly LogEvent[], pinHeader: boolean): string[] {
    return events.map((event) => {
      const data = structuredClone(event.data)
      if (event.type === 'assistant/message') {
        for (const call of data.toolCalls ?? []) call.id = this.callId(call.id)
      }
      if (event.type === 'tool/call' || event.type === 'tool/result') data.id = this.callId(data.id)
      if (event.type === 'request/header' && !pinHeader) {
        data.header = { ...data.header, system: SYSTEM_PLACEHOLDER, tools: TOOLS_PLACEHOLDER }
      }
      return JSON.stringify(this.scrub({ ...event, data }))
    })
  }

  /**
   * The messages the client received, as fixture lines. Consecutive text chunks of one session are
   * joined: how a model splits its text into deltas is the provider's business, not the protocol's,
   * and joining lets a recording from a real model replay through the scripted one.
   */
  stdout(messages: readonly any[]): string[] {
    const merged: any[] = []
    for (const message of messages) {
      const copy = structuredClone(message)
      const update = copy?.params?.update
      if (update?.toolCallId !== undefined) update.toolCallId = this.callId(update.toolCallId)
      const previous = merged.at(-1)
      if (isTextChunk(copy) && isTextChunk(previous) && previous.params.sessionId === copy.params.sessionId) {
        previous.params.update.content.text += copy.params.update.content.text
        continue
      }
      merged.push(copy)
    }
    return merged.map((message) => JSON.stringify(this.scrub(message)))
  }
}

function isTextChunk(message: any): boolean {
  return message?.method === 'session/update'
    && message.params?.update?.sessionUpdate === 'agent_message_chunk'
    && message.params.update.content?.type === 'text'
}

/** Lines as file text: one per line, a final newline, nothing for no lines. */
export function asFile(lines: readonly string[]): string {
  return lines.length ? `${lines.join('\n')}\n` : ''
}

/** The events of a JSONL file; `where` names it in the message of a bad line. */
export function parseJsonl(text: string, where: string): any[] {
  const events: any[] = []
  text.split('\n').forEach((line, index) => {
    if (!line.trim()) return
    try {
      events.push(JSON.parse(line))
    } catch (error) {
      throw new Error(`${where}:${index + 1}: not JSON: ${(error as Error).message}`)
    }
  })
  return events
}
