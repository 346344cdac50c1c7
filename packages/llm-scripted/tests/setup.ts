import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import type { ChatMessage } from 'dsh-core'
import LlmRuntime, { type GenerateOptions } from 'dsh-llm'
import ScriptedLlm from 'dsh-llm-scripted'

export async function setup(config: Record<string, unknown> = {}) {
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  const fiber = await ctx.plugin(ScriptedLlm, config)
  return { ctx, fiber }
}

export async function tempDir() {
  return mkdtemp(join(tmpdir(), 'dsh-llm-scripted-'))
}

/** Writes `content` (JSON-encoded unless a string) to a fresh temp file and returns its path. */
export async function scriptFile(content: unknown) {
  const file = join(await tempDir(), 'script.json')
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content))
  return file
}

export function ask(messages: ChatMessage[], extra: Partial<GenerateOptions> = {}): GenerateOptions {
  return { model: 'scripted-echo', system: 'You are a test.', tools: [], messages, ...extra }
}

export async function failure(promise: PromiseLike<unknown>): Promise<any> {
  return Promise.resolve(promise).then(() => { throw new Error('expected a rejection') }, (error: unknown) => error)
}
