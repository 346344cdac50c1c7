/**
 * Orders strings by UTF-16 code units. Not `localeCompare`: the order must not depend on the host's
 * locale, because it decides bytes of the prompt and thus prompt-cache hits.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
