/** Seconds to wait from `retry-after` (seconds or an HTTP date) or the `retry-after-ms` some providers send. */
export function retryAfterSeconds(headers: Headers | undefined, now = Date.now()): number | undefined {
  const raw = headers?.get('retry-after')?.trim()
  if (raw) {
    const seconds = Number(raw)
    if (Number.isFinite(seconds) && seconds >= 0) return seconds
    const date = Date.parse(raw)
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000))
  }
  const ms = Number(headers?.get('retry-after-ms') ?? NaN)
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : undefined
}
