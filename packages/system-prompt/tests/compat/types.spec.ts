import { describe, expect, expectTypeOf, it } from 'vitest'
import SystemPrompt, * as api from '../../src/index.ts'
import type {
  AssembleContext, AssembledContext, AssembledSection, Config, ContextSnapshotSection, PromptAssembly, PromptContext, PromptSection,
  ToolProviderResult,
} from '../../src/index.ts'

describe('the published names', () => {
  it('are exported, as values and as type aliases', () => {
    for (const name of ['renderPrompt', 'renderContextSnapshot', 'renderContextSections', 'joinContextSections', 'TOOL_ORDER_REST', 'PERSONA_SECTION', 'PERSONA_ORDER', 'SystemPrompt'] as const) {
      expect(api[name], name).toBeDefined()
    }
    expect(api.SystemPrompt).toBe(SystemPrompt)
    expectTypeOf<PromptSection>().toMatchTypeOf<{ name: string; order: number; text: string | ((context: AssembleContext) => string); complete?: boolean }>()
    expectTypeOf<PromptContext>().toMatchTypeOf<{ name: string; order: number; text: string | ((context: AssembleContext) => string) }>()
    expectTypeOf<AssembledContext>().toEqualTypeOf<{ name: string; text: string }>()
    expectTypeOf<PromptAssembly>().toMatchTypeOf<{ sections: AssembledSection[]; contexts: AssembledContext[]; variables: Record<string, string | undefined> }>()
    expectTypeOf<Config>().toMatchTypeOf<{ includeHarnessIdentity?: boolean; includeRuntimeContext?: boolean; persona?: string; toolOrder?: string[] }>()
    expectTypeOf<AssembleContext>().toMatchTypeOf<{ scope?: string; signal?: AbortSignal }>()
    expectTypeOf<ContextSnapshotSection>().toEqualTypeOf<{ readonly name: string; readonly text: string }>()
    expectTypeOf<ToolProviderResult>().toHaveProperty('knownNames')
    expectTypeOf(api.renderContextSections).returns.toEqualTypeOf<ContextSnapshotSection[]>()
    expectTypeOf(api.joinContextSections).returns.toEqualTypeOf<string>()
  })
})
