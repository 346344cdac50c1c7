/** What `emulatedAppFile` builds an app file from. */
export interface EmulatedApp {
  /** The app plugin's package, e.g. `dsh-stdio-demo`. */
  app: string
  /** `startEmulator(...).origin`. */
  origin: string
  /** The model id the emulator serves and the app asks for. */
  model: string
  /** Names of `dsh-tools-static` tools, in the order they are listed. */
  tools: readonly string[]
}

/**
 * An app file (YAML) whose model is served by the emulator on DeepSeek's route with `addition-only`, so a
 * tool added mid-session is announced in the history instead of rewriting the cached tool block. Sessions
 * go to `./sessions` beside the file; the API key is read from `CACHE_TEST_KEY`. The persona and the tool
 * descriptions are long enough that the prefix spans several cache blocks.
 */
export function emulatedAppFile({ app, origin, model, tools }: EmulatedApp): string {
  return [
    '- id: app',
    `  name: ${app}`,
    '  config:',
    '    persistenceRoot: ./sessions',
    `    model: ${model}`,
    `    persona: ${JSON.stringify('You are a careful assistant for long-running sessions. '.repeat(8))}`,
    '- id: provider',
    '  name: dsh-llm-openai',
    '  config:',
    `    baseURL: ${origin}/deepseek/v1`,
    '    apiKeyEnv: CACHE_TEST_KEY',
    `    models: [{ id: ${model}, provider: deepseek, toolUpdate: addition-only }]`,
    '- id: tools',
    '  name: dsh-tools-static',
    '  config:',
    '    tools:',
    ...tools.map((name) => `      - { name: ${name}, description: ${JSON.stringify(`The ${name} tool, described at some length so the tool block fills cache blocks.`)} }`),
    '',
  ].join('\n')
}
