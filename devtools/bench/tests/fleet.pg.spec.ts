import { describe, expect, it } from 'vitest'
import { run } from '../src/fleet.ts'

// The whole fleet bench, small: two real dsh-acp-demo processes on a throwaway cluster of its own (fsync on),
// four sessions, a few seconds of turns, then the server restarted under them.
describe('the fleet bench', { timeout: 300_000 }, () => {
  it('measures turns against the scripted model, then counts every log balanced and every session serving after a restart', async () => {
    const figures = await run(['--sessions', '4', '--minutes', '0.1', '--model-ms', '20', '--interval-ms', '100'])
    if (process.env.DSH_TEST_PG_URL) {
      // a given server cannot be restarted from here
      expect(figures.fleet_restart_note).toMatch(/^skipped/)
      return
    }
    expect(figures.fleet_note).toBeUndefined()
    expect(figures.fleet_turns).toBeGreaterThan(8)
    expect(figures.fleet_turns_failed).toBe(0)
    // the model's own time is at least its 20 ms; a turn through the door takes at least that
    expect(figures.fleet_scripted_ms_p50).toBeGreaterThanOrEqual(20)
    expect(figures.fleet_turn_overhead_p50_over_scripted).toBeGreaterThanOrEqual(1)
    expect(figures.fleet_appends_per_s).toBeGreaterThan(0)
    expect(typeof figures.fleet_rss_per_session_mb).toBe('number')
    expect(typeof figures.pg_append_turn_over_jsonl).toBe('number')
    expect(figures.fleet_restart_logs_balanced).toBe(4)
    expect(figures.fleet_restart_sessions_serving).toBe(4)
    expect(figures.fleet_restart_cut_turns_failed).toBeLessThanOrEqual(figures.fleet_restart_cut_turns as number)
  })
})
