import { DEFAULT_MAX_TOOL_BYTES, DEFAULT_SETTLE_MS } from '../cli.ts'
import { readApp } from '../inspect.ts'
import { checkContent } from './content.ts'
import { compareListings } from './listings.ts'
import { listServer, type McpListing } from './mcp-listing.ts'
import { snapshotBoot } from './snapshot.ts'
import { compareAssemblies } from './stability.ts'
import type { LintFinding, LintReport, PendingCheck } from './types.ts'

export interface LintOptions {
  file: string
  settleMs?: number
  maxToolBytes?: number
}

/** Bytes per token for the length estimate; real tokenizers differ, so a prefix near the line is a guess. */
const BYTES_PER_TOKEN = 4

/**
 * Boots the app file twice (one after the other), assembles twice in the first boot and once in the
 * second, lists every MCP server's tools twice, and reports what would keep the prefix from staying the
 * same bytes in real use. Each finding names its source.
 */
export async function lintApp(options: LintOptions): Promise<LintReport> {
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS
  const maxToolBytes = options.maxToolBytes ?? DEFAULT_MAX_TOOL_BYTES
  // read once, booted twice: an app file given as a FIFO (<(cat app.yml)) cannot be read a second time
  const text = await readApp(options.file)
  const first = await snapshotBoot(options.file, text, settleMs, 2)
  const second = await snapshotBoot(options.file, text, settleMs, 1)
  const [a, b] = first.assemblies as [typeof first.assemblies[0], typeof first.assemblies[0]]
  const findings: LintFinding[] = [...compareAssemblies('varies-between-assemblies', a, b, first, false)]
  const seen = new Set(findings.map(key))
  for (const finding of compareAssemblies('varies-between-boots', a, second.assemblies[0]!, first, true)) {
    if (!seen.has(key(finding))) findings.push(finding)
  }
  findings.push(...checkContent(a, first, maxToolBytes))
  const prefixBytes = Buffer.byteLength(`${JSON.stringify(a.tools)}\n${a.system}`)
  const pending: PendingCheck[] = []
  if (!first.cache) pending.push({ rule: 'prefix-below-minimum', note: 'the app runs no agent loop with a model, so there is no provider profile to ask for its minimum' })
  else {
    const estimate = Math.ceil(prefixBytes / BYTES_PER_TOKEN)
    const { model, provider, minimumTokens, contextWindow } = first.cache
    if (contextWindow !== undefined && estimate > contextWindow) {
      findings.push({
        rule: 'prefix-over-window',
        source: { kind: 'model', name: model },
        message: `the prefix is about ${estimate} tokens (${prefixBytes} bytes at ~${BYTES_PER_TOKEN} a token), more than the ${contextWindow}-token context window of ${model}`,
        advice: 'Every turn of this app would be refused before any model call: the tools and system prompt alone do not fit. Shorten the persona or sections, defer or drop tools, or use a model with a larger window.',
        detail: { estimatedTokens: estimate, bytes: prefixBytes, contextWindow, model },
      })
    }
    if (estimate < minimumTokens) {
      findings.push({
        rule: 'prefix-below-minimum',
        source: { kind: 'model', name: model },
        message: `the prefix is about ${estimate} tokens (${prefixBytes} bytes at ~${BYTES_PER_TOKEN} a token), under the ${minimumTokens}-token minimum the ${provider} profile gives for ${model}`,
        advice: 'A prefix below the minimum is never cached: only once history pushes the request past it does anything hit. Nothing to fix if the tools and prompt are meant to be this small.',
        detail: { estimatedTokens: estimate, bytes: prefixBytes, minimumTokens, provider, model },
      })
    }
  }
  const mcpListings: LintReport['checked']['mcpListings'] = []
  for (const spec of first.mcpServers) {
    const listings: McpListing[] = [await listServer(spec), await listServer(spec)]
    mcpListings.push({ server: spec.name, listings: listings.filter((listing) => !listing.error).length })
    findings.push(...compareListings(listings[0]!, listings[1]!))
  }
  return {
    file: options.file,
    findings,
    pending,
    checked: {
      boots: 2,
      assemblies: 3,
      mcpListings,
      prefixBytes,
      toolBytes: Buffer.byteLength(JSON.stringify(a.tools)),
      tools: a.tools.length,
      sections: a.sections.length,
    },
  }
}

const key = (finding: LintFinding) => `${finding.source.kind}:${finding.source.name}`
