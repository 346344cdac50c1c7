// vitest globalSetup: a throwaway state folder for the whole run, so no test (nor a bin it spawns) writes
// sessions or REPL history into the user's own $XDG_STATE_HOME or ~/.local/state. Tests that are about the
// state folder set HOME and XDG_STATE_HOME themselves.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup() {
  const folder = mkdtempSync(join(tmpdir(), 'dsh-test-state-'))
  const before = process.env.XDG_STATE_HOME
  process.env.XDG_STATE_HOME = folder
  return () => {
    if (before === undefined) delete process.env.XDG_STATE_HOME
    else process.env.XDG_STATE_HOME = before
    rmSync(folder, { recursive: true, force: true })
  }
}
