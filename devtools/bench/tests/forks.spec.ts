import { describe, expect, it } from 'vitest'
import { CONFIGURATIONS } from '../src/cache/configurations.ts'
import { FORK_ROUTES, LOCAL_ROUTES, realLlama, runForkRoute } from '../src/cache/forks.ts'

const configuration = (key: string) => CONFIGURATIONS.find((candidate) => candidate.key === key)!

// The fork scenario of bench:cache, through the spine with its agent tool, the real adapter and the emulator.
describe('bench:cache forks', () => {
  it('a forked child, the parent after it and a side question each read at least 0.95 of their prompt (Anthropic\'s rules)', { timeout: 120_000 }, async () => {
    const run = await runForkRoute(configuration(FORK_ROUTES.anthropic!), 'anthropic')
    expect(run.problems).toEqual([])
    expect(run.forkFirst).toBeGreaterThanOrEqual(0.95)
    expect(run.parentAfterFork).toBeGreaterThanOrEqual(0.95)
    expect(run.side).toBeGreaterThanOrEqual(0.95)
  })

  it('on a llama.cpp server a fresh child evicts its parent from a lone slot, and from two left to the server\'s pick, not with id_slot', { timeout: 120_000 }, async () => {
    const [one, two, free] = LOCAL_ROUTES
    const lone = await runForkRoute(one!, one!.key, 1)
    const pinned = await runForkRoute(two!, two!.key, 2)
    const picked = await runForkRoute(free!, free!.key, 2)
    expect([...lone.problems, ...pinned.problems, ...picked.problems]).toEqual([])
    expect(pinned.parentAfterFresh).toBeGreaterThanOrEqual(0.95)
    expect(lone.parentAfterFresh).toBeLessThan(0.95)
    // the fresh child shares the tool block with the parent's slot, so the server's own pick is that slot
    expect(picked.parentAfterFresh).toBeLessThan(0.95)
    // the fork child shares its parent's slot in both
    expect(pinned.forkFirst).toBeGreaterThanOrEqual(0.95)
  })

  it('points the local route at a real llama.cpp server by DSH_BENCH_LLAMA_URL, with id_slot from two slots', () => {
    expect(realLlama({})).toBeUndefined()
    expect(realLlama({ DSH_BENCH_LLAMA_URL: 'http://127.0.0.1:8080/v1' })).toMatchObject({ key: 'llamacpp_real_1_slot', adapter: { baseURL: 'http://127.0.0.1:8080/v1' } })
    expect(realLlama({ DSH_BENCH_LLAMA_URL: 'http://127.0.0.1:8080/v1', DSH_BENCH_LLAMA_SLOTS: '2' }))
      .toMatchObject({ key: 'llamacpp_real_2_slots', entry: { affinity: { field: 'id_slot', slots: 2 } } })
    expect(() => realLlama({ DSH_BENCH_LLAMA_URL: 'x', DSH_BENCH_LLAMA_SLOTS: 'two' })).toThrow('DSH_BENCH_LLAMA_SLOTS must be the server\'s -np, a whole number >= 1, got "two"')
  })
})
