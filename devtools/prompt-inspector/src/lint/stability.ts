import { listNames, quote, type ToolSchema } from 'dsh-core'
import type { AssemblySnapshot, BootSnapshot } from './snapshot.ts'
import type { LintFinding, LintRule } from './types.ts'

const RUNTIME_CONTEXT = 'Move the value out of the cached prefix: a runtime context (systemPrompt.context) reaches the model after it, as a message, only when it changes.'

/**
 * What differs between two assemblies `a` and `b`: each prompt variable a section uses, each section whose
 * text changed for another reason than such a variable, each tool (not from an MCP server when
 * `skipServerTools`; those are compared listing by listing). `rule` says which pair was compared.
 */
export function compareAssemblies(rule: LintRule, a: AssemblySnapshot, b: AssemblySnapshot, boot: BootSnapshot, skipServerTools: boolean): LintFinding[] {
  const findings: LintFinding[] = []
  const between = rule === 'varies-between-boots' ? 'between two boots' : 'between two assemblies of one boot'
  const used = new Map<string, string[]>()
  for (const section of a.sections) for (const name of section.variables) used.set(name, [...used.get(name) ?? [], section.name])
  const changedVariables = new Set<string>()
  for (const [name, sections] of used) {
    if (a.variables[name] === b.variables[name]) continue
    changedVariables.add(name)
    findings.push({
      rule,
      source: { kind: 'variable', name },
      message: `prompt variable {{${name}}} has another value ${between}: ${quote(a.variables[name])}, then ${quote(b.variables[name])} (used by section ${listNames(sections.map(quote))})`,
      advice: `Every new value is a new cached prefix, so nothing after it is ever read from the cache. ${RUNTIME_CONTEXT}`,
      detail: { values: [a.variables[name] ?? null, b.variables[name] ?? null], sections },
    })
  }
  const sectionsB = new Map(b.sections.map((section) => [section.name, section]))
  for (const section of a.sections) {
    const other = sectionsB.get(section.name)
    if (other && other.text === section.text) continue
    if (other && other.template === section.template && section.variables.some((name) => changedVariables.has(name))) continue
    findings.push({
      rule,
      source: { kind: 'section', name: section.name },
      message: other
        ? `section ${JSON.stringify(section.name)} renders other text ${between}`
        : `section ${JSON.stringify(section.name)} is in one assembly and not in the other (${between})`,
      advice: `A section's text is part of the cached prefix: it must be the same every time. ${RUNTIME_CONTEXT}`,
      detail: { texts: [section.text, other?.text ?? null] },
    })
  }
  for (const section of b.sections) {
    if (!a.sections.some((mine) => mine.name === section.name)) {
      findings.push({ rule, source: { kind: 'section', name: section.name }, message: `section ${JSON.stringify(section.name)} is in one assembly and not in the other (${between})`, detail: { texts: [null, section.text] } })
    }
  }
  findings.push(...compareTools(rule, between, a.tools, b.tools, boot, skipServerTools))
  return findings
}

function compareTools(rule: LintRule, between: string, a: readonly ToolSchema[], b: readonly ToolSchema[], boot: BootSnapshot, skipServerTools: boolean): LintFinding[] {
  const findings: LintFinding[] = []
  const inB = new Map(b.map((tool) => [tool.name, JSON.stringify(tool)]))
  const inA = new Map(a.map((tool) => [tool.name, JSON.stringify(tool)]))
  const source = (name: string) => ({ kind: 'tool' as const, name, entry: boot.owners.get(name)?.entry ?? null, server: boot.owners.get(name)?.server ?? null })
  for (const name of new Set([...inA.keys(), ...inB.keys()])) {
    if (skipServerTools && boot.owners.get(name)?.server) continue
    const left = inA.get(name)
    const right = inB.get(name)
    if (left === right) continue
    const message = left === undefined || right === undefined
      ? `tool ${JSON.stringify(name)} is declared in one assembly and not in the other (${between})`
      : `tool ${JSON.stringify(name)} is declared with other bytes ${between}`
    findings.push({ rule, source: source(name), message, advice: 'The tool block comes first in the prefix: any change to it misses the cache for everything after it.', detail: { declarations: [left ?? null, right ?? null] } })
  }
  const order = (list: readonly ToolSchema[], other: Map<string, string>) => list.map((tool) => tool.name).filter((name) => other.has(name))
  const orderA = order(a, inB)
  const orderB = order(b, inA)
  if (orderA.some((name, index) => orderB[index] !== name)) {
    findings.push({ rule, source: { kind: 'tool', name: orderA.find((name, index) => orderB[index] !== name)! }, message: `the tools come in another order ${between}`, detail: { orders: [orderA, orderB] } })
  }
  return findings
}
