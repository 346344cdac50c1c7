/** The fleet bench's knobs, from `--name value` arguments. */
export interface FleetOptions {
  /** Live sessions, split evenly over the two processes. */
  sessions: number
  /** Length of the steady phase of turns, in minutes (`--minutes 30` for the soak). */
  minutes: number
  /** The scripted model's time per answer (its script's `delayMs`). */
  modelMs: number
  /** Mean pause of each session between the end of one turn and its next prompt (uniform 0.5–1.5 of it). */
  intervalMs: number
}

export const DEFAULTS: FleetOptions = { sessions: 200, minutes: 0.5, modelMs: 100, intervalMs: 2000 }

const LIMITS: Record<keyof FleetOptions, { flag: string; min: number; max: number; whole: boolean }> = {
  sessions: { flag: '--sessions', min: 2, max: 1000, whole: true },
  minutes: { flag: '--minutes', min: 0.1, max: 600, whole: false },
  modelMs: { flag: '--model-ms', min: 1, max: 60_000, whole: true },
  intervalMs: { flag: '--interval-ms', min: 0, max: 600_000, whole: true },
}

/** Reads the options from `args`; a bad value throws one line naming it and what is valid. */
export function fleetOptions(args: readonly string[]): FleetOptions {
  const options = { ...DEFAULTS }
  for (const [key, { flag, min, max, whole }] of Object.entries(LIMITS) as [keyof FleetOptions, (typeof LIMITS)[keyof FleetOptions]][]) {
    const at = args.indexOf(flag)
    if (at < 0) continue
    const text = args[at + 1]
    const value = Number(text)
    if (text === undefined || text.trim() === '' || !Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
      throw new Error(`bench fleet: ${flag} must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(text ?? null)}`)
    }
    options[key] = value
  }
  if (options.sessions % 2) throw new Error(`bench fleet: --sessions must be even (split over two processes), got ${options.sessions}`)
  return options
}
