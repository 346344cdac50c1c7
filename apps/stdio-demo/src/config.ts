import { forwardConfig, type ConfigInput } from 'dsh-core'
import Schema from 'schemastery'
import { Config as HarnessSchema, type Config as HarnessConfig } from 'dsh-harness'

/** The app's config: every key of the harness, plus what only the terminal front door uses. */
export interface StdioDemoConfig extends HarnessConfig {
  welcome: string
}

export const Config: Schema<ConfigInput<StdioDemoConfig>, StdioDemoConfig> = Schema.intersect([
  HarnessSchema,
  Schema.object({
    welcome: Schema.string().default('DSH stdio demo. Type a message; /tools, /prompt, /exit.')
      .description('First line of the interactive REPL (not printed when stdin is piped).'),
  }),
]) as Schema<ConfigInput<StdioDemoConfig>, StdioDemoConfig>

/** What the harness receives: the keys its schema declares (none of the app's own); absent keys stay absent. */
export function spineConfig(config: StdioDemoConfig): HarnessConfig {
  return forwardConfig<HarnessConfig>(HarnessSchema, config)
}
