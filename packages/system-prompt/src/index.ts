export { SystemPrompt, PERSONA_SECTION, PERSONA_ORDER, IDENTITY_TEXT } from './service.ts'
export type { SystemPromptConfig, SystemPromptChange, PromptInspection } from './service.ts'
export { TOOL_ORDER_GROUP, TOOL_ORDER_REST, ToolOrderPolicy, canonicalToolOrder, isToolGroup, type ToolPlacement } from './tool-order.ts'
export { interpolate } from './interpolate.ts'
export {
  SECTION_SEPARATOR, joinSections, renderPrompt, renderSection, renderSections, sectionAt, sectionRanges,
  type RenderedSection, type SectionRange,
} from './render.ts'
export { sha256 } from './fingerprint.ts'
export { SCHEMA_KEY_ORDERS, snapshotSchema, type SchemaKeyOrder } from './snapshot.ts'
export { SystemPromptError } from './errors.ts'
export type { SystemPromptErrorCode } from './errors.ts'
export type {
  AssembleContext, AssembledSection, PromptAssembly, SectionDefinition, SectionText, ToolProvider, ToolProviderResult,
  VariableProvider,
} from './types.ts'
export { SystemPrompt as default } from './service.ts'
