/** Median wall time of `fn` in milliseconds, after a warm-up; rounds are interleaved by the caller when comparing. */
export async function median(fn: () => unknown, rounds: number, warmup = Math.min(20, rounds)): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn()
  const times: number[] = []
  for (let i = 0; i < rounds; i++) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

/**
 * Medians of several functions measured side by side: each round runs every function once, in turn, so
 * machine noise hits all of them alike and their ratio stays meaningful.
 */
export async function sideBySide(fns: Record<string, () => unknown>, rounds: number, warmup = 10): Promise<Record<string, number>> {
  const names = Object.keys(fns)
  for (let i = 0; i < warmup; i++) for (const name of names) await fns[name]()
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
  for (let i = 0; i < rounds; i++) {
    for (const name of names) {
      const start = performance.now()
      await fns[name]()
      samples[name].push(performance.now() - start)
    }
  }
  return Object.fromEntries(names.map((name) => {
    const sorted = samples[name].sort((a, b) => a - b)
    return [name, sorted[Math.floor(sorted.length / 2)]]
  }))
}

/** A deterministic pseudo-random generator, so every run benchmarks the same inputs. */
export function seeded(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

export function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

export const round = (value: number, digits = 3) => Number(value.toFixed(digits))
