import { Console } from 'node:console'

/**
 * Points the global console at stderr. stdout carries ACP bytes only: a stray `console.log` anywhere in
 * the process (a dependency, a plugin) would corrupt the protocol stream for the editor.
 */
export function guardStdout(): void {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr })
}
