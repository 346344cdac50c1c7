import { Logger } from 'cordis'
import type { Exporter, Message } from 'cordis'
import { AppBootError, showValue } from './errors.ts'
import { oneLine } from 'dsh-core'

/** How much the app logs to stderr. `silent` writes nothing. */
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug'

const LEVELS: Record<LogLevel, number> = { silent: -1, error: 0, warn: 1, info: 2, debug: 3 }

/** Turns a level name into cordis's number; a wrong name is a AppBootError listing the valid ones. */
export function logLevelNumber(level: string): number {
  if (Object.hasOwn(LEVELS, level)) return LEVELS[level as LogLevel]
  throw new AppBootError('INVALID_OPTION', `unknown log level ${showValue(level)}; valid levels: ${Object.keys(LEVELS).join(', ')}`)
}

/**
 * A cordis logger exporter that writes to stderr only: an ACP app's stdout carries protocol bytes.
 * While booting it holds back plugin errors, because a failed entry is reported once, as a AppBootError;
 * `release()` writes the held errors that were not reported (all of them at the debug level).
 */
export class StderrLog {
  readonly exporter: Exporter
  private held: Message[] | undefined = []

  constructor(private readonly level: number, private readonly write: (line: string) => unknown = (line) => process.stderr.write(line)) {
    this.exporter = {
      colors: false,
      levels: { default: level },
      export: (message) => {
        if (this.held && message.level === 0 && message.args[0] instanceof Error) {
          this.held.push(message)
        } else {
          this.print(message)
        }
      },
    }
  }

  release(reported: ReadonlySet<unknown>): void {
    const held = this.held ?? []
    this.held = undefined
    // cordis logs an error's causes as messages of their own; a reported error's causes are reported with it
    const covered = new Set<unknown>()
    for (let error of reported) {
      for (let depth = 0; error !== undefined && depth < 8 && !covered.has(error); depth++) {
        covered.add(error)
        error = error instanceof Error ? error.cause : undefined
      }
    }
    for (const message of held) {
      if (this.level >= LEVELS.debug || !covered.has(message.args[0])) this.print(message)
    }
  }

  // below debug an Error shows as one line, `Name: message`; its stack is for the debug level
  private print(message: Message): void {
    const [first, ...rest] = message.args
    const shown = first instanceof Error && this.level < LEVELS.debug
      ? { ...message, args: ['%s', oneLine(`${first.name}: ${first.message}`), ...rest] }
      : message
    this.write(`[${message.type}] ${message.name}: ${Logger.format(this.exporter, shown)}\n`)
  }
}
