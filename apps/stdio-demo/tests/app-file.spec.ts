import { writeFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { run, writeApp } from './setup.ts'

describe('hostile app files, through the executable', () => {
  it('refuses a YAML alias bomb in one line, quickly', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]']
    for (const [index, name] of [...'bcdefgh'].entries()) {
      levels.push(`${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(97 + index)}`).join(', ')}]`)
    }
    const { file } = await writeApp(`- id: app\n  name: dsh-stdio-demo\n  config:\n    bomb:\n${levels.map((line) => `      ${line}`).join('\n')}\n`)
    const started = performance.now()
    const result = await run([file], 'hello\n')
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: YAML aliases expand to more than 100 nodes; refusing the file (Excessive alias count indicates a resource exhaustion attack)\n`)
  })

  it('refuses a "__proto__" key, which would switch off the unknown-key check, in one line naming the line', async () => {
    const { file } = await writeApp('- id: app\n  name: dsh-stdio-demo\n  config:\n    persistenceRoot: ./sessions\n    __proto__: { model: x }\n    modle: scripted-echo\n')
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: line 5, column 5: key "__proto__" is refused: JavaScript takes it as an object's prototype, not as data `
      + '(a map would lose the entry or change its defaults); rename it\n')
  })

  it('refuses a "__proto__" MCP server name instead of silently dropping that server', async () => {
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }',
      '- id: mcp',
      '  name: dsh-tools-mcp',
      '  config:',
      '    servers:',
      '      __proto__: { command: node, args: [-e, ""] }',
    ].join('\n') + '\n')
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toMatch(/^.*app\.yml: line 6, column 7: key "__proto__" is refused: .*; rename it\n$/)
  })

  it('reads an app file that starts with a UTF-8 byte order mark', async () => {
    const { file } = await writeApp('\uFEFF- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }\n')
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 0, stdout: 'echo: hello\n' })
  })

  it('refuses an app file that is not UTF-8, naming the byte offset and the line', async () => {
    const { file } = await writeApp('')
    const head = Buffer.from('- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, persona: "Caf')
    await writeFile(file, Buffer.concat([head, Buffer.from([0xe9]), Buffer.from('" } }\n')]))
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: not valid UTF-8 at byte offset ${head.length} (line 1, bytes e9 22 20 7d); save the file as UTF-8\n`)
  })

  it('refuses an unknown YAML tag, naming it and the line', async () => {
    const { file } = await writeApp('- id: app\n  name: dsh-stdio-demo\n  config:\n    persistenceRoot: ./sessions\n    persona: !include persona.md\n')
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: line 5, column 14: unknown YAML tag "!include"; app files take plain values `
      + '(tags of the YAML core schema only: !!str, !!int, !!float, !!bool, !!null, !!seq, !!map)\n')
  })

  it('fails the boot when the API-key variable of a model entry is unset, naming the variable and the entry', async () => {
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: deepseek-chat } }',
      '- { id: deepseek, name: dsh-llm-openai, config: { baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: DSH_TEST_UNSET_DEEPSEEK_KEY, models: [deepseek-chat] } }',
    ].join('\n') + '\n')
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: entry "deepseek" (dsh-llm-openai): failed to start: environment variable DSH_TEST_UNSET_DEEPSEEK_KEY is not set `
      + '(needed by dsh-llm-openai for model deepseek-chat); export it, or disable this entry\n')
  })

  it('refuses at boot a tool-update mode the provider profile does not take, in one line naming the file, entry, model, mode and why', async () => {
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: local-model } }',
      '- { id: local, name: dsh-llm-anthropic, config: { baseURL: "http://127.0.0.1:9", apiKeyEnv: DSH_TEST_UNSET_ANTHROPIC_KEY, models: [{ id: local-model, toolUpdate: addition-only }] } }',
    ].join('\n') + '\n')
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: entry "local" (dsh-llm-anthropic): failed to start: dsh-llm-anthropic: model "local-model" has toolUpdate "addition-only", `
      + 'but the generic profile does not accept it: plain Chat Completions and Messages servers take no tool_addition blocks (llama.cpp answers HTTP 400 '
      + '"unsupported content[].type"); set provider: deepseek on an endpoint that does; valid: none, append\n')
  })

  it('says once at boot that a Claude model which takes no tool-change blocks falls back to append', async () => {
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: claude-sonnet-4-5 } }',
      '- { id: claude, name: dsh-llm-anthropic, config: { baseURL: "https://api.anthropic.com", apiKeyEnv: DSH_TEST_UNSET_ANTHROPIC_KEY, models: [{ id: claude-sonnet-4-5, toolUpdate: addition-only }] } }',
    ].join('\n') + '\n')
    const result = await run([file], 'hello\n')
    const notice = 'dsh-llm-anthropic: model "claude-sonnet-4-5" asks for toolUpdate "addition-only", but it does not take tool_addition / tool_removal blocks: '
      + 'Anthropic documents mid-conversation tool changes for Claude Opus 4.8, Opus 5, Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable 5, Fable 5.1, Mythos 5 and Mythos 5.1 only '
      + '(set toolChanges: true on the entry to send them anyway); it uses append instead'
    expect(result.stderr.split(notice).length - 1).toBe(1)
    // the boot then goes on to the next check, the unset key
    expect(result.stderr).toContain('environment variable DSH_TEST_UNSET_ANTHROPIC_KEY is not set')
  })

  it('refuses at boot a cache lifetime an OpenAI breakpoint model does not take, and a cacheBreakpoints that is no boolean', async () => {
    const entry = (model: string) => `- { id: oai, name: dsh-llm-openai, config: { baseURL: "https://api.openai.com/v1", apiKeyEnv: DSH_TEST_UNSET_OPENAI_KEY, models: [${model}] } }`
    const boot = async (model: string) => {
      const { file } = await writeApp(['- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: gpt-5.6 } }', entry(model)].join('\n') + '\n')
      return { file, result: await run([file], 'hello\n') }
    }
    const ttl = await boot('{ id: gpt-5.6, cacheTtl: 24h }')
    expect(ttl.result).toMatchObject({ code: 1, stdout: '' })
    expect(ttl.result.stderr).toBe(`${ttl.file}: entry "oai" (dsh-llm-openai): failed to start: dsh-llm-openai: model "gpt-5.6" has cacheTtl "24h", `
      + "which is not a lifetime of the openai profile's breakpoint models (GPT-5.6 and later); valid: 30m\n")
    const flag = await boot('{ id: gpt-5.6, cacheBreakpoints: sometimes }')
    expect(flag.result).toMatchObject({ code: 1, stdout: '' })
    expect(flag.result.stderr).toBe(`${flag.file}: entry "oai" (dsh-llm-openai): invalid config: $.models[0] expected string | { id: string, `
      + 'provider?: "anthropic" | "openai" | "deepseek" | "dashscope" | "generic", toolUpdate?: "none" | "append" | "addition-only" | "in-history", '
      + 'toolChanges?: boolean, contextWindow?: number, cacheTtl?: string, cacheBreakpoints?: boolean, price?: any, affinity?: { field?: string, slots?: number }, diagnostics?: boolean, keepalive?: any } but got {"id":"gpt-5.6","cacheBreakpoints":"sometimes"}\n')
  })

  it('refuses at boot a price that is negative or not a number, in one line naming the file, the entry, the model and the key', async () => {
    const boot = async (entry: string) => {
      const { file } = await writeApp([
        '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: claude-opus-5 } }',
        entry,
      ].join('\n') + '\n')
      return { file, result: await run([file], 'hello\n') }
    }
    const negative = await boot('- { id: claude, name: dsh-llm-anthropic, config: { baseURL: "https://api.anthropic.com", apiKeyEnv: DSH_TEST_UNSET_ANTHROPIC_KEY, models: [{ id: claude-opus-5, price: { cacheRead: -0.5 } }] } }')
    expect(negative.result).toMatchObject({ code: 1, stdout: '' })
    expect(negative.result.stderr).toBe(`${negative.file}: entry "claude" (dsh-llm-anthropic): failed to start: dsh-llm-anthropic: model "claude-opus-5" has price.cacheRead -0.5; `
      + 'it must be a number of USD per million tokens >= 0\n')
    const text = await boot('- { id: offline, name: dsh-llm-scripted, config: { models: [{ id: priced-echo, price: { input: cheap, output: 1, cacheRead: 0.1, cacheWrite: 1.25 } }] } }')
    expect(text.result).toMatchObject({ code: 1, stdout: '' })
    expect(text.result.stderr).toBe(`${text.file}: entry "offline" (dsh-llm-scripted): failed to start: adapter "scripted": model "priced-echo" has price.input "cheap"; `
      + 'it must be a number of USD per million tokens >= 0\n')
  })

  it('refuses at boot a keepalive cap of 0 and a keepalive on a profile whose lifetime is unknown, in one line naming the file, entry, model and key', async () => {
    const boot = async (models: string, baseURL = 'https://api.anthropic.com') => {
      const { file } = await writeApp([
        '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: m } }',
        `- { id: claude, name: dsh-llm-anthropic, config: { baseURL: "${baseURL}", apiKeyEnv: DSH_TEST_UNSET_ANTHROPIC_KEY, models: [${models}] } }`,
      ].join('\n') + '\n')
      return { file, result: await run([file], 'hello\n') }
    }
    const zero = await boot('{ id: m, keepalive: { maxSpend: 0 } }')
    expect(zero.result).toMatchObject({ code: 1, stdout: '' })
    expect(zero.result.stderr).toBe(`${zero.file}: entry "claude" (dsh-llm-anthropic): failed to start: dsh-llm-anthropic: model "m" has keepalive.maxSpend 0; `
      + 'it must be a number of USD > 0 (a cap of 0 would never let a ping go: leave keepalive out instead)\n')
    const unknown = await boot('{ id: m, keepalive: {} }', 'https://api.deepseek.com/anthropic')
    expect(unknown.result).toMatchObject({ code: 1, stdout: '' })
    expect(unknown.result.stderr).toBe(`${unknown.file}: entry "claude" (dsh-llm-anthropic): failed to start: dsh-llm-anthropic: model "m" has keepalive, `
      + "but the deepseek profile's cache lifetime is unknown (best-effort), so no ping can be timed before it ends; the keepalive refuses to start: remove keepalive from this entry\n")
    const unpriced = await boot('{ id: m, keepalive: { maxSpend: 0.5 } }')
    expect(unpriced.result.stderr).toBe(`${unpriced.file}: entry "claude" (dsh-llm-anthropic): failed to start: dsh-llm-anthropic: model "m" has keepalive, but no price: `
      + 'the keepalive weighs each ping against the write it saves; give the entry a price { input, output, cacheRead, cacheWrite } or remove keepalive from it\n')
    const typo = await boot('{ id: m, keepalive: { maxSpnd: 0.5 } }')
    expect(typo.result.stderr).toBe(`${typo.file}: entry "claude" (dsh-llm-anthropic): failed to start: dsh-llm-anthropic: model "m" has keepalive.maxSpnd, `
      + 'which is not a keepalive key; valid: maxSpend, idleLimitMs, compactWhenWarm\n')
  })

  it('refuses at boot cache diagnostics on a profile whose provider documents none, naming the file, the entry and the key', async () => {
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: deepseek-chat } }',
      '- { id: ds, name: dsh-llm-anthropic, config: { baseURL: "https://api.deepseek.com/anthropic", apiKeyEnv: DSH_TEST_UNSET_DS_KEY, models: [{ id: deepseek-chat, diagnostics: true }] } }',
    ].join('\n') + '\n')
    const result = await run([file], 'hello\n')
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(result.stderr).toBe(`${file}: entry "ds" (dsh-llm-anthropic): failed to start: dsh-llm-anthropic: model "deepseek-chat" has diagnostics true, `
      + "but the deepseek profile's provider documents no cache diagnostics; only entries on the anthropic profile take the key\n")
  })
})
