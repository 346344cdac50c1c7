import { FrozenList, derive, type ReadonlyList, type Usage } from 'dsh-core'

const CHARS_PER_TOKEN = 4

/** A deterministic token estimate (about four characters a token) of a request and its reply. */
export function estimateUsage(request: unknown, output: string): Usage {
  return {
    inputTokens: tokens(jsonLength(request)),
    outputTokens: tokens(output.length),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  }
}

function tokens(chars: number) {
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

/**
 * Lengths of frozen values, by identity. A conversation's history and tools arrive frozen from the
 * session log on every step, so each message and schema is measured once instead of on every call.
 */
const lengths = new WeakMap<object, number>()

const skipped = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol'

const keyLengths = new Map<string, number>()

function keyLength(key: string): number {
  let length = keyLengths.get(key)
  if (length === undefined) {
    length = JSON.stringify(key).length
    if (keyLengths.size < 10_000) keyLengths.set(key, length)
  }
  return length
}

/**
 * The JSON length of an array, carried forward from the list it extends (a conversation's history grows
 * by a few messages per step): `[` + items joined by commas + `]`.
 */
function arrayLength(list: ReadonlyList<unknown>): number {
  return derive(list, lengths as WeakMap<ReadonlyList<unknown>, number>, () => 2, (length, items, from) => {
    for (let index = from; index < items.length; index++) {
      const item = items.at(index)
      length += (skipped(item) ? 4 : jsonLength(item)) + (index > 0 ? 1 : 0)
    }
    return length
  })
}

/** `JSON.stringify(value).length`, computed without building the string. */
export function jsonLength(value: unknown): number {
  if (value === null || typeof value !== 'object') return skipped(value) ? 0 : JSON.stringify(value).length
  // Written as an array by its toJSON; measured item by item, carried forward along extensions.
  if (value instanceof FrozenList) return arrayLength(value)
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value).length
  const cached = lengths.get(value)
  if (cached !== undefined) return cached
  if (Array.isArray(value)) return arrayLength(value)
  let length = 2
  let members = 0
  if (Array.isArray(value)) {
    for (const item of value) {
      length += skipped(item) ? 4 : jsonLength(item)
      members++
    }
  } else {
    for (const [key, item] of Object.entries(value)) {
      if (skipped(item)) continue
      length += keyLength(key) + 1 + jsonLength(item)
      members++
    }
  }
  length += Math.max(0, members - 1)
  if (Object.isFrozen(value)) lengths.set(value, length)
  return length
}

