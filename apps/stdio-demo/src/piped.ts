import { messageOf } from 'dsh-core'
import { createInterface } from 'node:readline'
import type { Agent } from 'dsh-agent-loop'
import { formatActivity, runCommand } from './commands.ts'
import type { StdioDemo } from './plugin.ts'

export interface Streams {
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
  errors: NodeJS.WritableStream
}

/**
 * One prompt per input line, answered on `output` with its final text and a newline. Nothing else goes
 * to `output`: tool activity and failures go to `errors`, so the output can be piped on. Resolves at EOF.
 */
export async function servePiped({ input, output, errors }: Streams, demo: StdioDemo, agent: Agent): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false })
  for await (const line of lines) {
    if (line.trim() === '') continue
    let command
    try {
      command = await runCommand(line, demo, agent)
    } catch (error) {
      errors.write(`error: ${messageOf(error)}\n`)
      continue
    }
    if (command && 'exit' in command) break
    if (command) {
      output.write(`${command.text}\n`)
      continue
    }
    const result = await agent.prompt(line, {
      onUpdate: (update) => {
        const shown = formatActivity(update)
        if (shown) errors.write(`${shown}\n`)
      },
    })
    if (result.reason === 'done') output.write(`${result.text}\n`)
    else errors.write(`error: ${result.error}\n`)
  }
  lines.close()
}
