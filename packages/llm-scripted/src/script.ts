import type { ToolCall, Usage } from 'dsh-core'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { StopReason } from 'dsh-llm'
import { LlmScriptedError } from './error.ts'
import type { Reply } from './reply.ts'

/** A validated script file: the replies of successive model calls. */
export interface Script {
  /** Absolute path of the file. */
  path: string
  responses: Reply[]
}

const RESPONSE_KEYS = ['text', 'toolCalls', 'usage', 'stopReason', 'error', 'delayMs']
const CALL_KEYS = ['id', 'name', 'arguments']
const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'emulated']
const STOP_REASONS: StopReason[] = ['end_turn', 'tool_use', 'max_tokens']

/** Reads and validates a script file; a relative path resolves against `process.cwd()`. */
export async function loadScript(file: string): Promise<Script> {
  const path = resolve(process.cwd(), file)
  let source: string
  try {
    source = await readFile(path, 'utf8')
  } catch (error) {
    throw new LlmScriptedError('INVALID_SCRIPT', `cannot read script ${path}: ${(error as Error).message}`)
  }
  let data: unknown
  try {
    data = JSON.parse(source)
  } catch (error) {
    throw new LlmScriptedError('INVALID_SCRIPT', `script ${path} is not valid JSON: ${(error as Error).message}`)
  }
  return { path, responses: parseScript(data, path) }
}

/** Validates parsed script data; errors name `path` and the offending field. */
export function parseScript(data: unknown, path: string): Reply[] {
  const fail = (field: string, problem: string) => new LlmScriptedError('INVALID_SCRIPT', `script ${path}: ${field} ${problem}`)
  if (!isRecord(data)) throw fail('the top level', 'must be an object with a "responses" array')
  checkKeys(data, ['responses'], '', fail)
  if (!Array.isArray(data.responses)) throw fail('responses', 'must be an array')
  return data.responses.map((item: unknown, index: number) => parseResponse(item, `responses[${index}]`, fail))
}

type Fail = (field: string, problem: string) => LlmScriptedError

function parseResponse(item: unknown, at: string, fail: Fail): Reply {
  if (!isRecord(item)) throw fail(at, 'must be an object')
  checkKeys(item, RESPONSE_KEYS, at, fail)
  const { text, toolCalls, usage, stopReason, error, delayMs } = item
  if (text !== undefined && typeof text !== 'string') throw fail(`${at}.text`, 'must be a string')
  if (error !== undefined && (typeof error !== 'string' || !error)) throw fail(`${at}.error`, 'must be a non-empty string')
  if (delayMs !== undefined && !(typeof delayMs === 'number' && Number.isFinite(delayMs) && delayMs >= 0)) {
    throw fail(`${at}.delayMs`, 'must be a finite number ≥ 0')
  }
  if (stopReason !== undefined && !STOP_REASONS.includes(stopReason as StopReason)) {
    throw fail(`${at}.stopReason`, `must be one of ${STOP_REASONS.join(', ')}`)
  }
  if (toolCalls !== undefined && !Array.isArray(toolCalls)) throw fail(`${at}.toolCalls`, 'must be an array')
  if (text === undefined && error === undefined && !(toolCalls as unknown[] | undefined)?.length) {
    throw fail(at, 'must have "text", a non-empty "toolCalls" or "error"')
  }
  const calls = ((toolCalls ?? []) as unknown[]).map((call, index) => parseCall(call, `${at}.toolCalls[${index}]`, fail))
  return {
    text: text ?? '',
    toolCalls: calls,
    ...usage !== undefined && { usage: parseUsage(usage, `${at}.usage`, fail) },
    ...stopReason !== undefined && { stopReason: stopReason as StopReason },
    ...error !== undefined && { error },
    ...delayMs !== undefined && { delayMs },
  }
}

function parseCall(call: unknown, at: string, fail: Fail): Omit<ToolCall, 'id'> & { id?: string } {
  if (!isRecord(call)) throw fail(at, 'must be an object')
  checkKeys(call, CALL_KEYS, at, fail)
  if (typeof call.name !== 'string' || !call.name) throw fail(`${at}.name`, 'must be a non-empty string')
  if (call.id !== undefined && (typeof call.id !== 'string' || !call.id)) throw fail(`${at}.id`, 'must be a non-empty string')
  if (call.arguments !== undefined && !isRecord(call.arguments)) throw fail(`${at}.arguments`, 'must be a JSON object')
  return {
    ...call.id !== undefined && { id: call.id },
    name: call.name,
    arguments: (call.arguments ?? {}) as Record<string, unknown>,
  }
}

function parseUsage(usage: unknown, at: string, fail: Fail): Partial<Usage> {
  if (!isRecord(usage)) throw fail(at, 'must be an object')
  checkKeys(usage, USAGE_KEYS, at, fail)
  for (const [key, value] of Object.entries(usage)) {
    if (key === 'emulated') {
      if (value !== true) throw fail(`${at}.${key}`, 'must be true or absent (figures no provider reported)')
      continue
    }
    if (!(typeof value === 'number' && Number.isInteger(value) && value >= 0)) throw fail(`${at}.${key}`, 'must be an integer ≥ 0')
  }
  return usage as Partial<Usage>
}

function checkKeys(value: Record<string, unknown>, allowed: string[], at: string, fail: Fail) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw fail(at ? `${at}.${key}` : key, `is not a known field; valid: ${allowed.join(', ')}`)
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
