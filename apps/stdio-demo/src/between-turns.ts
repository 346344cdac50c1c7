import type { Interface } from 'node:readline'

/**
 * Lines that are not part of an answer (log lines, MCP server notices) on a REPL's terminal. Before the REPL
 * starts they go straight out; while it shows its prompt the prompt line is erased, the line printed and the
 * prompt drawn again with what was typed so far; during a turn they wait, and go out when it ends, before
 * the next prompt. So no such line ever lands over the `>` prompt or inside a streamed answer.
 */
export class BetweenTurns {
  private rl: Interface | undefined
  private output: NodeJS.WritableStream | undefined
  private inTurn = false
  private readonly waiting: string[] = []

  /** `write` puts one line (with its newline) on the terminal: stderr for log lines. */
  constructor(private readonly write: (text: string) => void, private readonly dumb = process.env.TERM === 'dumb') {}

  /** The REPL is up: from now on lines go between turns. */
  attach(rl: Interface, output: NodeJS.WritableStream): void {
    this.rl = rl
    this.output = output
  }

  detach(): void {
    this.rl = undefined
    this.flush()
  }

  say(line: string): void {
    const text = line.endsWith('\n') ? line : `${line}\n`
    const { rl, output } = this
    if (!rl || !output) return this.write(text)
    if (this.inTurn) return void this.waiting.push(text)
    // erased with spaces, so it also clears on a dumb terminal
    output.write(`\r${' '.repeat(rl.getPrompt().length + rl.line.length)}\r`)
    this.write(text)
    if (this.dumb) output.write(`${rl.getPrompt()}${rl.line}`)
    else rl.prompt(true)
  }

  turnStarted(): void {
    this.inTurn = true
  }

  /** The turn's output is done: the lines that waited go out now, before the next prompt. */
  turnEnded(): void {
    this.inTurn = false
    this.flush()
  }

  private flush(): void {
    for (const text of this.waiting.splice(0)) this.write(text)
  }
}
