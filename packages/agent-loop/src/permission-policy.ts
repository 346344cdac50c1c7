import Schema from 'schemastery'
import { quote } from 'dsh-core'
import type { EventData } from 'dsh-session'
import { ToolPatterns, toolPatternProblem } from 'dsh-system-prompt'
import { unmatchablePatternProblem, type ExecutableTool } from 'dsh-tools'
import { AgentLoopError } from './errors.ts'

/** The hints a tool gives about its effects (dsh-tools' `ExecutableTool['annotations']`). */
type ToolAnnotations = NonNullable<ExecutableTool['annotations']>

/** The policy key that decided a call (a `permission/decision`'s `rule`). */
type PermissionRule = NonNullable<EventData<'permission/decision'>['rule']>

/** What happens to a call no pattern and no hint decides. */
export type PermissionDefault = 'ask' | 'allow' | 'deny'

/** The `permissions` key of an app file, on the agent bundle. */
export interface PermissionsConfig {
  default: PermissionDefault
  /** Tool names and `prefix*` groups that run without asking (the `toolOrder` pattern rule). */
  allow: string[]
  /** Tool names and `prefix*` groups that never run; a deny beats every allow. */
  deny: string[]
}

export const PermissionsSchema: Schema<PermissionsConfig> = Schema.object({
  default: Schema.union(['ask', 'allow', 'deny']).default('ask')
    .description('ask: a call no pattern decides is asked (a terminal, an ACP client); allow: it runs; deny: it gets an error result.'),
  allow: Schema.array(Schema.string()).default([]).description('Tool names and prefix groups (mcp__memory__*) that run without asking.'),
  deny: Schema.array(Schema.string()).default([]).description('Tool names and prefix groups that never run; deny beats allow.'),
})

/** What the policy says about one call before anyone is asked. */
export type PolicyVerdict =
  | { decision: 'allow' | 'deny'; rule: PermissionRule; pattern?: string }
  /** Someone must answer; `destructive` tools are asked on every call (no "always" answer). */
  | { decision: 'ask'; destructive: boolean }

const PATTERN_PROBLEMS = {
  'empty': 'must be a non-empty tool name',
  'star-inside': '"*" may only end a pattern, as in "mcp__github__*" (a prefix group)',
  'bare-star': 'a bare "*" matches everything; use permissions.default instead',
}

/** A checked policy with its two pattern lists indexed (the matcher `toolOrder` uses). */
export class PermissionPolicy {
  private readonly allow: ToolPatterns
  private readonly deny: ToolPatterns

  constructor(readonly config: Readonly<PermissionsConfig>) {
    const lists = { allow: config.allow, deny: config.deny }
    for (const [key, list] of Object.entries(lists)) {
      const seen = new Set<string>()
      list.forEach((entry, index) => {
        const problem = toolPatternProblem(entry)
        if (problem) throw new AgentLoopError('INVALID_CONFIG', `permissions.${key}[${index}] is ${quote(entry)}: ${PATTERN_PROBLEMS[problem]}`)
        // patterns are about the names the model sees: one no tool can have would never apply (a deny never denies)
        const never = unmatchablePatternProblem(entry)
        if (never) throw new AgentLoopError('INVALID_CONFIG', `permissions.${key}[${index}] is ${quote(entry)}, which can never match: ${never}`)
        if (seen.has(entry)) throw new AgentLoopError('INVALID_CONFIG', `permissions.${key} lists ${quote(entry)} twice`)
        seen.add(entry)
      })
    }
    const both = config.allow.find((entry) => config.deny.includes(entry))
    if (both !== undefined) {
      throw new AgentLoopError('INVALID_CONFIG', `permissions lists ${quote(both)} in both allow and deny; keep it in one (deny would win)`)
    }
    this.allow = new ToolPatterns(config.allow)
    this.deny = new ToolPatterns(config.deny)
  }

  /**
   * The rule, first match wins: a `deny` pattern; an `allow` pattern; then the default — under `ask` a
   * `readOnlyHint` tool is allowed and a `destructiveHint` one is asked on every call.
   */
  judge(name: string, hints: Readonly<ToolAnnotations> | undefined): PolicyVerdict {
    const denied = this.deny.match(name)
    if (denied) return { decision: 'deny', rule: 'permissions.deny', pattern: denied.entry }
    const allowed = this.allow.match(name)
    if (allowed) return { decision: 'allow', rule: 'permissions.allow', pattern: allowed.entry }
    const fallback = this.config.default
    if (fallback !== 'ask') return { decision: fallback, rule: 'permissions.default' }
    if (hints?.readOnlyHint === true) return { decision: 'allow', rule: 'readOnlyHint' }
    return { decision: 'ask', destructive: hints?.destructiveHint === true }
  }
}
