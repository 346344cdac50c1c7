import { messageOf, describeValue } from 'dsh-core'
import { ToolsError } from './errors.ts'
import type { ToolExecuteContext, ToolResult } from './types.ts'

const failure = (output: string): ToolResult => ({ output, isError: true })

/** A tool's return value as the text the model reads. */
export function formatOutput(name: string, value: unknown): ToolResult {
  if (typeof value === 'string') return { output: value, isError: false }
  if (value === undefined) return { output: '', isError: false }
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    return failure(`tool ${describeValue(name)} returned a value that cannot be turned into JSON: ${messageOf(error)}`)
  }
  if (text === undefined) return failure(`tool ${describeValue(name)} returned ${typeof value === 'function' ? 'a function' : `a ${typeof value}`}, which has no JSON form`)
  return { output: text, isError: false }
}

/**
 * Runs one call under a timeout and the caller's signal. Resolves with the first of: the tool's result,
 * the timeout, the cancellation. A tool that ignores its signal keeps running, but its late result is dropped.
 */
export function runTool(
  name: string,
  execute: (args: unknown, context: ToolExecuteContext) => unknown,
  args: unknown,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<ToolResult> {
  const cancelled = failure(`tool ${describeValue(name)} was cancelled`)
  if (outer?.aborted) return Promise.resolve(cancelled)
  const controller = new AbortController()
  return new Promise<ToolResult>((resolve) => {
    let settled = false
    const settle = (result: ToolResult, abort?: { reason: unknown }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      outer?.removeEventListener('abort', onAbort)
      resolve(result)
      // Aborted after settling, so whatever the tool does on abort cannot race the result we chose.
      if (abort) controller.abort(abort.reason)
    }
    const onAbort = () => settle(cancelled, { reason: outer!.reason })
    const timer = setTimeout(() => {
      const message = `tool ${describeValue(name)} timed out after ${timeoutMs} ms`
      settle(failure(message), { reason: new ToolsError('TIMEOUT', message) })
    }, timeoutMs)
    outer?.addEventListener('abort', onAbort, { once: true })
    new Promise((started) => started(execute(args, { signal: controller.signal }))).then(
      (value) => settle(formatOutput(name, value)),
      (error) => settle(failure(`tool ${describeValue(name)} failed: ${messageOf(error)}`)),
    )
  })
}
