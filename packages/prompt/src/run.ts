import { USAGE, parseArgs } from './cli.ts'
import { diffPrefixes } from './diff.ts'
import { PromptCliError } from './errors.ts'
import { fingerprint } from './fingerprint.ts'
import { inspectApp } from './inspect.ts'
import { renderDiff, renderInspection } from './render.ts'
import { loadSource, type PrefixSource } from './sources.ts'

/** What one invocation printed and how it ended. */
export interface RunResult {
  /** 0 done (diff: identical), 1 diff: the prefixes differ / inspect: failed, 2 diff: failed (like diff(1)). */
  code: 0 | 1 | 2
  stdout: string
  stderr: string
}

/** Runs the CLI on `argv` (without node and the script). Errors become one stderr line and code 1. */
export async function run(argv: readonly string[]): Promise<RunResult> {
  try {
    const command = parseArgs(argv)
    if (command.command === 'help') return { code: 0, stdout: `${USAGE}\n`, stderr: '' }
    if (command.command === 'inspect') {
      const inspection = await inspectApp({ file: command.file, settleMs: command.settleMs })
      return { code: 0, stdout: command.json ? json(inspection) : renderInspection(inspection), stderr: '' }
    }
    // one after the other: two booted apps at once would share the process's stderr log and timers
    const a = await loadSource(command.a, command.settleMs, command.pg)
    const b = await loadSource(command.b, command.settleMs, command.pg)
    const diff = diffPrefixes(a, b)
    const stdout = command.json ? json({ a: describe(a), b: describe(b), ...diff }) : renderDiff(a, b, diff)
    return { code: diff.identical ? 0 : 1, stdout, stderr: '' }
  } catch (error) {
    // like diff(1), a diff that could not compare exits 2, so 1 always means "the prefixes differ"
    const code = argv.find((arg) => !arg.startsWith('-')) === 'diff' ? 2 : 1
    if (error instanceof PromptCliError) return { code, stdout: '', stderr: `${error.message.trimEnd()}\n` }
    const text = error instanceof Error ? error.stack ?? error.message : String(error)
    return { code, stdout: '', stderr: `dsh-prompt: unexpected error: ${text}\n` }
  }
}

function describe(source: PrefixSource) {
  return { input: source.input, kind: source.kind, model: source.header.model, event: source.event, fingerprint: fingerprint(source.header) }
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

