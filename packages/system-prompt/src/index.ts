export { SystemPrompt, PERSONA_SECTION, PERSONA_ORDER, IDENTITY_TEXT } from './service.ts'
export type { SystemPromptConfig, SystemPromptConfig as Config, PromptInspection } from './service.ts'
export type { SystemPromptChange } from './register.ts'
export { TOOL_ORDER_GROUP, TOOL_ORDER_REST, ToolOrderPolicy, canonicalToolOrder, isToolGroup } from './tool-order.ts'
export { ToolPatterns, toolPatternProblem } from './tool-patterns.ts'
export { interpolate } from './interpolate.ts'
export {
  CONTEXT_SNAPSHOT_HEADING, SECTION_SEPARATOR, joinContextSections, joinSections, renderContextSections,
  renderContextSnapshot, renderPrompt, renderSection, renderSections, sectionAt, sectionRanges,
  type RenderedSection, type SectionRange,
} from './render.ts'
export {
  firstByteDifference, prefixDiff, prefixTools, systemDiff, toolsDiff, type Prefix, type PrefixDifference,
  type PrefixSystemCause, type SystemDifference, type PrefixToolCause, type ToolDifference,
} from './prefix-diff.ts'
export { sha256 } from './fingerprint.ts'
export { SCHEMA_KEY_ORDERS, snapshotSchema, type SchemaKeyOrder } from './snapshot.ts'
export { SystemPromptError } from './errors.ts'
export type { SystemPromptErrorCode } from './errors.ts'
export type {
  AssembleContext, AssembledContext, AssembledSection, ContextDefinition, ContextSnapshotSection,
  PromptAssembly, PromptContext, PromptSection, SectionDefinition, ToolProvider, ToolProviderResult,
} from './types.ts'
// host apps that depend on this package alone name the schema type through it (README.md#use-dsh-in-your-cordis-app)
export type { ToolSchema } from 'dsh-core'
export { SystemPrompt as default } from './service.ts'
export { contextScope, scopedContext } from './scoped-context.ts'
