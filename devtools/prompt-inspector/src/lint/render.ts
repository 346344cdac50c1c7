import type { LintReport } from './types.ts'

/** The lint report as text: one block per finding (rule, source, message, advice), then what is pending. */
export function renderLint(report: LintReport): string {
  const { checked } = report
  const mcp = checked.mcpListings.length ? `, ${checked.mcpListings.map((item) => `MCP server ${item.server} listed ${item.listings}×`).join(', ')}` : ''
  const lines = [
    `lint: ${report.file}`,
    `checked: ${checked.boots} boots, ${checked.assemblies} assemblies, ${checked.sections} section(s), ${checked.tools} tool(s) (${checked.toolBytes} B), prefix ${checked.prefixBytes} B${mcp}`,
    '',
  ]
  if (!report.findings.length) lines.push('no findings: the prefix stayed the same bytes, and nothing in it looks volatile')
  else lines.push(`${report.findings.length} finding(s):`)
  for (const finding of report.findings) {
    const { source } = finding
    const where = [`${source.kind} ${source.name}`, source.entry ? `entry ${source.entry}` : '', source.server ? `MCP server ${source.server}` : ''].filter(Boolean).join(', ')
    lines.push(`  ${finding.rule}  [${where}]`, `    ${finding.message}`)
    if (finding.advice) lines.push(`    → ${finding.advice}`)
  }
  for (const pending of report.pending) lines.push('', `pending: ${pending.rule}: ${pending.note}`)
  return `${lines.join('\n')}\n`
}
