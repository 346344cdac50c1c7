import { basename } from 'node:path'
import { describe, it } from 'vitest'
import { report } from './diff.ts'
import { compareFixture, record, recordTarget, replayRun, snapshotMode, writeFixture } from './replay.ts'
import { reconstructionProblems } from './reconstruction.ts'
import { secretProblems } from './rules.ts'
import { loadScenario, scenarioDirs } from './scenario.ts'

const mode = snapshotMode(process.env.DSH_SNAPSHOT)
const dirs = await scenarioDirs()

// each scenario is its own process and temp folder, so they run side by side
describe.concurrent(`ACP snapshots (DSH_SNAPSHOT=${mode})`, () => {
  it.each(dirs.map((dir) => [basename(dir), dir]))('%s', async (name, dir) => {
    const scenario = await loadScenario(dir)
    const scan = async () => {
      const leaks = await secretProblems(dir)
      if (leaks.length) throw new Error(`key-shaped strings in the rewritten fixture; remove them before committing:\n${leaks.join('\n')}`)
    }
    if (mode === 'record') {
      await writeFixture(scenario, await record(scenario, recordTarget(process.env), process.env))
      await scan()
    }
    // after a record, this replay checks that the new recording replays
    const { files, run } = await replayRun(scenario)
    // every step's request, rebuilt from the session log alone, is the dispatched one byte for byte
    const rebuilt = reconstructionProblems(run)
    if (rebuilt.length) throw new Error(`${name}: the session log does not rebuild what was dispatched:\n${rebuilt.join('\n')}`)
    if (mode === 'refresh') {
      await writeFixture(scenario, files)
      return scan()
    }
    const differences = await compareFixture(scenario, files)
    if (differences.length) throw new Error(report(name, differences))
  }, 60_000)
})
