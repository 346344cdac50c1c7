import { describe, expect, expectTypeOf, it } from 'vitest'
import SystemPrompt, * as api from '../../src/index.ts'
import * as bytes from '../../src/bytes.ts'
import type { AssembleContext, PromptAssembly, SystemPromptConfig as Config, ToolProviderResult } from '../../src/index.ts'
import type { ContextSnapshotSection } from '../../src/bytes.ts'
import type { AssembledContext, AssembledSection, PromptContext, PromptSection } from '../../src/types.ts'

describe('the published names', () => {
  it('are exported: the service and its types from the root, the rendering from dsh-system-prompt/bytes', () => {
    expect(api.default).toBe(SystemPrompt)
    expect(api.TOOL_ORDER_REST).toBeDefined()
    for (const name of ['renderPrompt', 'renderContextSections', 'joinContextSections'] as const) expect(bytes[name], name).toBeDefined()
    expectTypeOf<PromptSection>().toMatchTypeOf<{ name: string; order: number; text: string | ((context: AssembleContext) => string); complete?: boolean }>()
    expectTypeOf<PromptContext>().toMatchTypeOf<{ name: string; order: number; text: string | ((context: AssembleContext) => string) }>()
    expectTypeOf<AssembledContext>().toEqualTypeOf<{ name: string; text: string }>()
    expectTypeOf<PromptAssembly>().toMatchTypeOf<{ sections: AssembledSection[]; contexts: AssembledContext[]; variables: Record<string, string | undefined> }>()
    expectTypeOf<Config>().toMatchTypeOf<{ includeHarnessIdentity?: boolean; includeRuntimeContext?: boolean; persona?: string; toolOrder?: string[] }>()
    expectTypeOf<AssembleContext>().toMatchTypeOf<{ scope?: string; signal?: AbortSignal }>()
    expectTypeOf<ContextSnapshotSection>().toEqualTypeOf<{ readonly name: string; readonly text: string }>()
    expectTypeOf<ToolProviderResult>().toHaveProperty('knownNames')
    expectTypeOf(bytes.renderContextSections).returns.toEqualTypeOf<ContextSnapshotSection[]>()
    expectTypeOf(bytes.joinContextSections).returns.toEqualTypeOf<string>()
  })
})
