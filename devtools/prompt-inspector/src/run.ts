import { boundLines } from './bounded-lines.ts'
import { USAGE, parseArgs } from './cli.ts'
import { diffPrefixes } from './diff.ts'
import { PromptInspectorError } from './errors.ts'
import { fingerprint } from './fingerprint.ts'
import { inspectApp } from './inspect.ts'
import { renderDiff, renderInspection } from './render.ts'
import { loadSource, type PrefixSource } from './sources.ts'
import { lintApp } from './lint/lint.ts'
import { renderLint } from './lint/render.ts'
import { describeView, writeSessionPage } from './view/command.ts'
import { fleetView } from './fleet-view.ts'

/** What one invocation printed and how it ended. */
export interface RunResult {
  /** 0 done (diff: identical, lint: clean), 1 diff: the prefixes differ / lint: findings / inspect, view: failed, 2 diff, lint: failed. */
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
    if (command.command === 'view') {
      const result = await writeSessionPage(command)
      const stdout = command.json ? json({ file: result.file, bytes: result.bytes, summary: result.view.summary, breaks: result.view.breaks.length, tree: result.tree, ...result.view.keepalive && { keepalive: result.view.keepalive } }) : describeView(result)
      return { code: 0, stdout, stderr: result.warning ?? '' }
    }
    if (command.command === 'lint') {
      const report = await lintApp({ file: command.file, settleMs: command.settleMs, maxToolBytes: command.maxToolBytes })
      return { code: report.findings.length ? 1 : 0, stdout: command.json ? json(report) : boundLines(renderLint(report)), stderr: '' }
    }
    if (command.command === 'sessions') return { code: 0, stdout: await fleetView(command), stderr: '' }
    // one after the other: two booted apps at once would share the process's stderr log and timers
    const a = await loadSource(command.a, command.settleMs, command.pg)
    const b = await loadSource(command.b, command.settleMs, command.pg)
    const diff = diffPrefixes(a, b)
    const stdout = command.json ? json({ a: describe(a), b: describe(b), ...diff }) : renderDiff(a, b, diff)
    return { code: diff.identical ? 0 : 1, stdout, stderr: '' }
  } catch (error) {
    // like diff(1), a diff or lint that could not run exits 2, so 1 always means "differ" / "found something"
    const first = argv.find((arg) => !arg.startsWith('-'))
    const code = first === 'diff' || first === 'lint' ? 2 : 1
    if (PromptInspectorError.is(error)) return { code, stdout: '', stderr: `${boundLines(error.message.trimEnd())}\n` }
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

