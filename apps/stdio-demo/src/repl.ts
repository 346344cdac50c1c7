import { clearLine, createInterface, cursorTo } from 'node:readline'
import type { ReadStream } from 'node:tty'
import { oneLine, rawService, type Usage } from 'dsh-core'
import type { Agent, AgentUpdate } from 'dsh-harness'
import type { BetweenTurns } from './between-turns.ts'
import { formatActivity, runCommand } from './commands.ts'
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, pasteAwareInput, restoreLines } from './paste.ts'
import { usageLine } from './usage-line.ts'
import { HISTORY_LINES, HistoryFile, loadHistory } from './history.ts'
import type { Streams } from './piped.ts'
import { terminalAsker } from './permission-prompt.ts'
import type { StdioDemo } from './service.ts'
import { showThinking } from './thinking.ts'

/** What the REPL shows besides answers: lines between turns (log lines, MCP server notices). */
export interface ReplOptions {
  historyPath?: string
  between?: BetweenTurns
}

/**
 * The interactive loop on a terminal: text streams as it arrives, tool calls show as they run, a spinner
 * says the model has not answered yet (after the prompt, and after each tool result), Ctrl-C cancels a
 * running turn, clears a half-typed line, and leaves on an empty one; `/exit` or Ctrl-D leaves. A pasted
 * block of lines is one turn (bracketed paste). After each turn, on a terminal, one dim line of token
 * usage. Typed lines are kept in `historyPath` across runs (up-arrow recalls them). Resolves when the user
 * leaves and the history is saved.
 */
export async function serveRepl({ input: stdin, output, errors }: Streams, demo: StdioDemo, agent: Agent, options: ReplOptions = {}): Promise<void> {
  // resolved once, while the app is active: a turn's last updates may arrive as a signal disposes it, and the
  // service proxy refuses every access then (the notice wording needs nothing of the app)
  const harness = rawService(demo.harness)
  const { historyPath, between } = options
  const history = historyPath === undefined ? undefined : new HistoryFile(historyPath, (message) => errors.write(`warning: ${message}\n`), harness)
  const past = history ? await loadHistory(history.path) : []
  // a real terminal marks pastes; its lines then reach readline as one line (see paste.ts)
  const tty = (stdin as Partial<ReadStream>).isTTY && typeof (stdin as Partial<ReadStream>).setRawMode === 'function' ? stdin as ReadStream : undefined
  const pasting = tty ? pasteAwareInput(tty) : undefined
  const input = pasting?.input ?? stdin
  const markPastes = pasting !== undefined && process.env.TERM !== 'dumb'
  if (markPastes) output.write(BRACKETED_PASTE_ON)
  // readline lists history newest first
  const rl = createInterface({ input, output, terminal: true, prompt: '> ', history: past.reverse(), historySize: HISTORY_LINES })
  between?.attach(rl, output)
  rl.on('history', (lines: string[]) => history?.save([...lines].reverse()))
  let open = true
  let exited = false
  rl.on('close', () => (open = false))
  /** Aborts the command running now (a side question), if any. */
  let running: AbortController | undefined
  rl.on('SIGINT', () => {
    if (agent.status === 'running') agent.cancel()
    else if (running) running.abort()
    // like a shell: Ctrl-C drops a half-typed line; on an empty line it leaves
    else if (rl.line.length > 0) {
      // set directly: readline's line-editing keys are ignored on a dumb terminal
      const editable = rl as unknown as { line: string; cursor: number }
      editable.line = ''
      editable.cursor = 0
      output.write('^C\n')
      rl.prompt()
    } else rl.close()
  })

  // the welcome was shown while the app started (see startup.ts)
  output.write(`model: ${agent.model} · /help for commands\n`)
  // idle past the model's cache TTL: one line above the prompt, the half-typed line kept
  const stopCold = harness.onColdCache((_, info) => {
    if (!open) return
    if (between) return between.say(`(${harness.coldCacheNotice(info, harness.noticeLocale())})`)
    clearLine(output, 0)
    cursorTo(output, 0)
    output.write(`(${harness.coldCacheNotice(info, harness.noticeLocale())})\n`)
    rl.prompt(true)
  }, agent)
  rl.on('close', stopCold)
  rl.prompt()
  for await (const typed of rl) {
    const line = restoreLines(typed)
    if (line.trim() !== '') {
      between?.turnStarted()
      try {
        await answer(line)
      } finally {
        between?.turnEnded()
      }
    }
    if (open) rl.prompt()
  }
  between?.detach()
  if (markPastes) output.write(BRACKETED_PASTE_OFF)
  pasting?.close()
  // Ctrl-D and an idle Ctrl-C leave the cursor right after the prompt marker
  if (!exited) output.write('\n')
  await history?.settled()

  async function answer(line: string) {
    // Ctrl-C cancels a side question as it cancels a turn; its tool activity shows as a turn's does
    running = new AbortController()
    const onUpdate = (update: AgentUpdate) => {
      const shown = formatActivity(update, harness)
      if (shown) output.write(`${shown}\n`)
    }
    const command = await runCommand(line, demo, agent, { signal: running.signal, onUpdate }).finally(() => { running = undefined })
    if (command && 'error' in command) {
      output.write(`${command.error}\n`)
    } else if (command && 'exit' in command) {
      exited = true
      rl.close()
    } else if (command) {
      output.write(`${command.text}\n${command.note ? `${command.note}\n` : ''}`)
    } else {
      await turn(line)
    }
  }

  async function turn(line: string) {
    let atLineStart = true
    // on the terminal only: stdout redirected to a file gets the answer alone
    let thinking = showThinking(output, errors)
    const write = (text: string) => {
      thinking.stop()
      output.write(text)
      atLineStart = text.endsWith('\n')
    }
    const usages: Usage[] = []
    const onUpdate = (update: AgentUpdate) => {
      if (update.type === 'usage') return void usages.push(update.usage)
      if (update.type === 'text') return write(update.delta)
      const shown = formatActivity(update, harness)
      if (shown) write(`${atLineStart ? '' : '\n'}${shown}\n`)
      // the result goes back to the model: waiting for it again
      if (update.type === 'tool-result') thinking = showThinking(output, errors)
    }
    // a call the permission policy asks about is asked here, one question per call
    const askPermission = terminalAsker(rl, () => thinking.stop())
    const result = await agent.prompt(line, { onUpdate, askPermission }).finally(() => thinking.stop())
    if (!atLineStart) write('\n')
    if (result.reason === 'cancelled') write('(cancelled)\n')
    else if (result.reason !== 'done') write(`error: ${oneLine(result.error ?? '')}\n`)
    // what DSH is for, where a person sees it: how much of the prompt the provider's cache served
    // and what the turn cost, when its model has a price (tokens only otherwise)
    const usage = (output as { isTTY?: boolean }).isTTY ? usageLine(usages, harness.cost(agent, result.turn)) : undefined
    if (usage) write(usage)
  }
}
