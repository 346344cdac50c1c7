import { spawn } from 'node:child_process'

// Runs in its own process: polls the parent; once the parent is gone (it exited, crashed, or was killed
// with SIGKILL, when no cleanup of its own can run), stops the postmaster with SIGQUIT (immediate
// shutdown), SIGKILL after 10 s, and removes the cluster's folder. It also ends when the folder is gone.
const SCRIPT = `
const fs = require('node:fs')
const [parent, pidFile, dir] = process.argv.slice(1)
const alive = (pid) => { try { process.kill(pid, 0); return true } catch (error) { return error.code === 'EPERM' } }
const postmaster = () => { try { return Number(fs.readFileSync(pidFile, 'utf8').split('\\n')[0]) || undefined } catch { return undefined } }
const timer = setInterval(() => {
  if (!fs.existsSync(dir)) process.exit(0)
  if (alive(Number(parent))) return
  clearInterval(timer)
  const pid = postmaster()
  if (pid) { try { process.kill(pid, 'SIGQUIT') } catch {} }
  const deadline = Date.now() + 10000
  const wait = setInterval(() => {
    if (pid && alive(pid) && Date.now() < deadline) return
    if (pid && alive(pid)) { try { process.kill(pid, 'SIGKILL') } catch {} }
    clearInterval(wait)
    fs.rmSync(dir, { recursive: true, force: true })
    process.exit(0)
  }, 100)
}, 250)
`

/**
 * Ties a test cluster's life to this process: a detached watchdog stops the postmaster (its pid from
 * `pidFile`) and removes `dir` once this process is gone, however it went. Returns a function that
 * dismisses the watchdog (after an orderly stop).
 */
export function watchCluster(pidFile: string, dir: string): () => void {
  const child = spawn(process.execPath, ['-e', SCRIPT, String(process.pid), pidFile, dir], { detached: true, stdio: 'ignore' })
  child.unref()
  return () => {
    try {
      child.kill()
    } catch {
      // already gone
    }
  }
}
