/** Replaces every occurrence of `secret` in `text` (providers sometimes echo the key back). */
export function redactSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join('[redacted]') : text
}

/** An error's message followed by its causes' (`terminated (other side closed)`). */
export function describeCause(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const text = current instanceof Error ? current.message : String(current)
    if (text && !parts.includes(text)) parts.push(text)
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.length ? parts.length > 1 ? `${parts[0]} (${parts.slice(1).join(': ')})` : parts[0]! : 'unknown error'
}
