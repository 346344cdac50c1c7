import { AcpDemoError } from './errors.ts'

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** One place a client may put the notices capability, and what it put there. */
function advertises(where: string, value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false
  if (value === true || isRecord(value)) return true
  throw new AcpDemoError('INVALID_PARAMS', `initialize: clientCapabilities.${where} is ${JSON.stringify(value)}; to present notices send `
    + `clientCapabilities.session.notices: {} (true is accepted too), to decline leave it out or send false or null`, { [where]: value })
}

/**
 * Whether the client can present `notice` session updates, read from the `clientCapabilities` of its
 * `initialize` as sent (before the SDK's parsing, which turns anything but an object into "no"). ACP's form
 * is `session.notices: {}`; `true`, and the same at `clientCapabilities.notices`, say the same. Any other
 * value is refused, naming it and the forms accepted.
 */
export function clientPresentsNotices(capabilities: unknown): boolean {
  if (!isRecord(capabilities)) return false
  const session = isRecord(capabilities.session) ? capabilities.session : {}
  const inSession = advertises('session.notices', session.notices)
  const topLevel = advertises('notices', capabilities.notices)
  return inSession || topLevel
}
