import type { RequestHeader } from 'dsh-session'
import { PromptCliError } from './errors.ts'
import { inspectApp } from './inspect.ts'
import type { RenderedSection } from './sections.ts'
import { readSessionHeader } from './session-file.ts'

/** One side of a diff: a request header and where it came from. */
export interface PrefixSource {
  /** The argument as given, e.g. `app.yml` or `s.jsonl#12`. */
  input: string
  kind: 'app' | 'session'
  header: RequestHeader
  /** Sections with their offsets; only an app file has them (a session log keeps the rendered text). */
  sections: RenderedSection[] | null
  /** For a session log: the event's seq, line, turn, step and reason. */
  event: { seq: number; line: number; turn: number | null; step: number | null; reason: string | null } | null
}

const SESSION = /^(.*\.jsonl)(?:#(.*))?$/

/** Loads a diff input: an app file (`.yml`/`.yaml`, inspected) or a session log (`.jsonl`, optional `#seq`). */
export async function loadSource(input: string, settleMs?: number): Promise<PrefixSource> {
  const session = SESSION.exec(input)
  if (session) {
    const [, path, seqText] = session
    let seq: number | undefined
    if (seqText !== undefined) {
      if (!/^[1-9]\d*$/.test(seqText) || !Number.isSafeInteger(Number(seqText))) {
        throw new PromptCliError('INPUT', `${input}: bad seq ${JSON.stringify(seqText)}; write file.jsonl#SEQ with SEQ a positive integer`)
      }
      seq = Number(seqText)
    }
    const logged = await readSessionHeader(path, seq)
    const { header, ...event } = logged
    return { input, kind: 'session', header, sections: null, event }
  }
  if (/\.ya?ml$/i.test(input)) {
    const inspection = await inspectApp({ file: input, settleMs })
    return { input, kind: 'app', header: inspection.header, sections: inspection.sections, event: null }
  }
  throw new PromptCliError('INPUT', `${input}: unknown input; expected an app file (.yml, .yaml) or a session log (.jsonl, optionally file.jsonl#SEQ)`)
}
