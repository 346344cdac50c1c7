import { createInterface } from 'node:readline'
import type { Agent, AgentUpdate, Harness } from 'dsh-harness'
import { oneLine, rawService, type Usage } from 'dsh-core'
import { formatActivity, runCommand } from './commands.ts'
import { writeOut, type Output } from './output.ts'
import { usageLine } from './usage-line.ts'
import type { StdioDemo } from './service.ts'

export interface Streams {
  input: NodeJS.ReadableStream
  output: Output
  errors: NodeJS.WritableStream
}

/** How a piped run went: the bin exits non-zero when a turn failed. */
export interface PipedSummary {
  turns: number
  /** Turns that ended with reason `error` or `step_limit` (their messages went to stderr). */
  failed: number
}

/**
 * One prompt per input line, answered on `output` with its final text and a newline. Nothing else goes
 * to `output`: tool activity and failures go to `errors`, so the output can be piped on. Resolves at EOF,
 * at `/exit`, when `stop` aborts (the reader of `output` went away: a running turn is cancelled then), or
 * after a cancelled turn (a signal stops the app), leaving the lines after it unserved.
 */
export async function servePiped(
  { input, output, errors }: Streams,
  demo: StdioDemo,
  agent: Agent,
  stop?: AbortSignal,
): Promise<PipedSummary> {
  // resolved once, while the app is active: a turn's last updates may arrive as a signal disposes it, and the
  // service proxy refuses every access then (the notice wording needs nothing of the app)
  const harness = rawService(demo.harness)
  const summary: PipedSummary = { turns: 0, failed: 0 }
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false })
  const onStop = () => {
    lines.close()
    agent.cancel()
  }
  stop?.addEventListener('abort', onStop, { once: true })
  try {
    for await (const line of lines) {
      if (stop?.aborted) break
      if (line.trim() === '') continue
      // a side question's activity goes where a turn's does; the app stopping cancels it
      const command = await runCommand(line, demo, agent, { ...stop && { signal: stop }, onUpdate: (update) => showActivity(update, errors, harness) })
      if (command && 'exit' in command) break
      if (command && 'error' in command) {
        errors.write(`${command.error}\n`)
        continue
      }
      if (command) {
        if (command.note) errors.write(`${command.note}\n`)
        await writeOut(output, `${command.text}\n`)
        continue
      }
      const usages: Usage[] = []
      const result = await agent.prompt(line, {
        onUpdate: (update) => {
          if (update.type === 'usage') usages.push(update.usage)
          showActivity(update, errors, harness)
        },
      })
      if (stop?.aborted) break
      summary.turns++
      if (result.reason === 'done') {
        await writeOut(output, `${result.text}\n`)
      } else {
        summary.failed++
        // a provider's message may span lines; one failed turn is one stderr line
        errors.write(`error: ${oneLine(result.error ?? '')}\n`)
      }
      // the usage line on a terminal only: stderr captured by a program gets activity and errors alone
      const usage = (errors as { isTTY?: boolean }).isTTY ? usageLine(usages, harness.cost(agent, result.turn)) : undefined
      if (usage) errors.write(usage)
      // piped input cannot cancel a turn: the app is stopping (a signal), so the lines after it are not served
      if (result.reason === 'cancelled') break
    }
  } finally {
    stop?.removeEventListener('abort', onStop)
    lines.close()
  }
  return summary
}

/** A tool call, result or tool-list change as one stderr line. */
function showActivity(update: AgentUpdate, errors: NodeJS.WritableStream, harness: Harness): void {
  const shown = formatActivity(update, harness)
  if (shown) errors.write(`${shown}\n`)
}

/** The stderr line of a piped run with failed turns, e.g. `2 of 3 turns failed`. */
export function failureSummary(summary: PipedSummary): string | undefined {
  if (!summary.failed) return undefined
  return `${summary.failed} of ${summary.turns} ${summary.turns === 1 ? 'turn' : 'turns'} failed`
}
