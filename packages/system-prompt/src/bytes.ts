// `dsh-system-prompt/bytes`: the bytes of a prefix, for tools that look at them (the inspector, the cache-break
// detector, a host that logs its prompt). The rendering of an assembly, the UTF-8 byte ranges of its sections,
// their fingerprints, and where two prefixes part. The root entry holds the service, its config and its types.
export {
  joinContextSections, joinSections, renderContextSections, renderPrompt, renderSections, sectionRanges,
  type RenderedSection,
} from './render.ts'
export type { ContextSnapshotSection } from './types.ts'
// What the differences are made of is read off these functions' signatures (`Parameters<typeof prefixDiff>[0]` is
// a side, `NonNullable<ReturnType<typeof toolsDiff>>` a tool difference).
export { firstByteDifference, prefixDiff, prefixTools, systemDiff, toolsDiff } from './prefix-diff.ts'
export { sha256 } from './fingerprint.ts'
