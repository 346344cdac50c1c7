import { execFile } from 'node:child_process'
import { chmod, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, type Exit, expectEveryTurnFailed, writeApp } from './setup.ts'

// Root writes through any mode bits: as root the bin runs without the capabilities that bypass them
// (setpriv, util-linux), so mode bits bind it as they bind a user, and it still reads a checkout only root can
// reach (a clone in a `mktemp -d` folder, 0700)
const asRoot = process.getuid?.() === 0
const WITHOUT_OVERRIDE = ['--inh-caps=-all', '--bounding-set=-dac_override,-dac_read_search', '--']

function runAsUser(args: string[], input: string): Promise<Exit> {
  const [command, prefix] = asRoot ? ['setpriv', [...WITHOUT_OVERRIDE, process.execPath, BIN]] : [process.execPath, [BIN]]
  return new Promise((resolve) => {
    const child = execFile(command, [...prefix, ...args], { env: { ...process.env, DSH_LOG_LEVEL: '', HOME: '/nonexistent', XDG_STATE_HOME: '' } },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) ?? 1 : 0, stdout, stderr }))
    child.stdin!.end(input)
  })
}

describe('a sessions folder this user may not write', () => {
  it.each([
    ['an existing read-only folder', './logs', 'logs'],
    ['a folder to create inside a read-only one', './logs/sessions', join('logs', 'sessions')],
  ])('%s: each turn fails with one line naming the folder and the permission, nothing else', async (_what, root, folder) => {
    const { file, dir } = await writeApp(`- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ${root} } }\n`)
    await mkdir(join(dir, 'logs'))
    await chmod(join(dir, 'logs'), 0o555)
    await chmod(dir, 0o755)
    await chmod(file, 0o644)
    const exit = await runAsUser([file], 'hi\nagain\n')
    expectEveryTurnFailed(exit, 2, new RegExp(`^error: cannot append to ${join(dir, folder)}/[0-9a-f-]+\\.jsonl: permission denied: this user cannot create or write `
        + `in the sessions folder ${join(dir, folder)} \\(EACCES: (mkdir|open) ${join(dir, 'logs')}/?\\S*\\); make it writable or set persistenceRoot to another folder; `
        + 'the session refuses further appends$'))
    expect(exit.stderr).not.toContain('ENOENT')
  })
})
