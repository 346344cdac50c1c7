import type { RequestHeader } from 'dsh-session'
import { DEFAULT_PG_SCHEMA, DEFAULT_PG_URL_ENV, type PgInputOptions } from './cli.ts'
import { PromptInspectorError } from './errors.ts'
import { inspectApp } from './inspect.ts'
import type { RenderedSection } from './sections.ts'
import { readPgSessionHeader } from './pg-session.ts'
import { readSessionHeader } from './session-file.ts'

/** One side of a diff: a request header and where it came from. */
export interface PrefixSource {
  /** The argument as given, e.g. `app.yml`, `s.jsonl#12` or `pg:chat-1#12`. */
  input: string
  kind: 'app' | 'session'
  header: RequestHeader
  /** Sections with their offsets; only an app file has them (a session log keeps the rendered text). */
  sections: RenderedSection[] | null
  /** For a session: the event's seq, line (null in PostgreSQL), turn, step and reason. */
  event: { seq: number; line: number | null; turn: number | null; step: number | null; reason: string | null } | null
}

const SESSION = /^(.*\.jsonl)(?:#(.*))?$/
const PG_SESSION = /^pg:([^#]*)(?:#(.*))?$/
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/

/**
 * Loads a diff input: an app file (`.yml`/`.yaml`, inspected), a session log (`.jsonl`, optional `#seq`)
 * or a session in PostgreSQL (`pg:ID`, optional `#seq`, read where `pg` says).
 */
export async function loadSource(input: string, settleMs?: number, pg: PgInputOptions = { urlEnv: DEFAULT_PG_URL_ENV, schema: DEFAULT_PG_SCHEMA }): Promise<PrefixSource> {
  const stored = PG_SESSION.exec(input)
  if (stored) {
    const [, id, seqText] = stored
    if (!SESSION_ID.test(id!)) {
      throw new PromptInspectorError('INPUT', `${input}: bad session id ${JSON.stringify(id)}; write pg:ID with ID 1 to 128 characters of A-Z, a-z, 0-9, "_" and "-"`)
    }
    const { header, ...event } = await readPgSessionHeader(id!, pg, parseSeq(input, seqText, 'pg:ID#SEQ'))
    return { input, kind: 'session', header, sections: null, event }
  }
  const session = SESSION.exec(input)
  if (session) {
    const [, path, seqText] = session
    const logged = await readSessionHeader(path!, parseSeq(input, seqText, 'file.jsonl#SEQ'))
    const { header, ...event } = logged
    return { input, kind: 'session', header, sections: null, event }
  }
  if (/\.ya?ml$/i.test(input)) {
    const inspection = await inspectApp({ file: input, settleMs })
    return { input, kind: 'app', header: inspection.header, sections: inspection.sections, event: null }
  }
  throw new PromptInspectorError('INPUT', `${input}: unknown input; expected an app file (.yml, .yaml), a session log (.jsonl, optionally file.jsonl#SEQ) or pg:SESSION-ID[#SEQ]`)
}

function parseSeq(input: string, seqText: string | undefined, form: string): number | undefined {
  if (seqText === undefined) return undefined
  if (!/^[1-9]\d*$/.test(seqText) || !Number.isSafeInteger(Number(seqText))) {
    throw new PromptInspectorError('INPUT', `${input}: bad seq ${JSON.stringify(seqText)}; write ${form} with SEQ a positive integer`)
  }
  return Number(seqText)
}
