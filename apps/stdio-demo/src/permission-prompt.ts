import type { Interface } from 'node:readline'
import type { PermissionAnswer, PermissionAsker, PermissionRequest } from 'dsh-harness'

/** The key a person types for each answer, and how the choice reads. */
const KEYS: Record<PermissionAnswer, { key: string; label: string }> = {
  'allow-once': { key: 'y', label: 'once' },
  'allow-always': { key: 'a', label: 'always (this session)' },
  'deny': { key: 'n', label: 'deny' },
}

/** The question line, e.g. `? allow write_file {"path":"a"} — [y] once · [a] always (this session) · [n] deny: `. */
export function permissionQuestion(request: PermissionRequest): string {
  const args = JSON.stringify(request.arguments)
  const shown = args.length > 160 ? `${args.slice(0, 159)}…` : args
  const choices = request.options.map((answer) => `[${KEYS[answer].key}] ${KEYS[answer].label}`).join(' · ')
  return `? allow ${request.name} ${shown}${request.destructive ? ' (it says it is destructive)' : ''} — ${choices}: `
}

/** The answer a typed line stands for: `y`, `a`, `n` (or their words), an empty line denies; undefined asks again. */
export function answerOf(line: string, options: readonly PermissionAnswer[]): PermissionAnswer | undefined {
  const typed = line.trim().toLowerCase()
  if (typed === '') return 'deny'
  return options.find((answer) => typed === KEYS[answer].key || typed === answer || (answer === 'allow-once' && typed === 'yes') || (answer === 'deny' && typed === 'no'))
}

/**
 * Asks on the REPL's terminal, one question per call; `beforeAsking` clears the line (the spinner) first.
 * Ctrl-C cancels the turn, which aborts `request.signal` and ends the question.
 */
export function terminalAsker(rl: Interface, beforeAsking: () => void): PermissionAsker {
  return async (request) => {
    beforeAsking()
    for (;;) {
      const line = await question(rl, permissionQuestion(request), request.signal)
      const answer = answerOf(line, request.options)
      if (answer) return answer
    }
  }
}

function question(rl: Interface, text: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('the turn was cancelled'))
    // readline drops the callback of a question its signal ended: the rejection comes from here
    const onAbort = () => reject(new Error('the turn was cancelled'))
    signal.addEventListener('abort', onAbort, { once: true })
    rl.question(text, { signal }, (answer) => {
      signal.removeEventListener('abort', onAbort)
      resolve(answer)
    })
  })
}
