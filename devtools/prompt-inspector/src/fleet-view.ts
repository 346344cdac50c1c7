import { readFleetReport, type FleetReport } from 'dsh-session-postgres'
import type { PgInputOptions } from './cli.ts'
import { PromptInspectorError } from './errors.ts'

/** `dsh-prompt sessions pg:`: the fleet report as text, or as one JSON object with `json`. */
export async function fleetView(command: { url: string | undefined; json: boolean; pg: PgInputOptions }): Promise<string> {
  let report: FleetReport
  try {
    report = await readFleetReport({ ...command.url ? { url: command.url } : { urlEnv: command.pg.urlEnv }, schema: command.pg.schema })
  } catch (error) {
    throw new PromptInspectorError('INPUT', `sessions pg:: ${(error as Error).message}`, { cause: error })
  }
  return command.json ? `${JSON.stringify(report, null, 2)}\n` : renderFleet(report)
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`

/** The plain-text form: one heading line, then one block per question, each line one fact. */
export function renderFleet(report: FleetReport): string {
  const lines = [`fleet of schema "${report.schema}" at ${report.database} (${report.stored} stored sessions), ${report.at}`, '']
  lines.push(`live holders: ${report.holders.length}`)
  for (const holder of report.holders) {
    lines.push(`  ${holder.host}:${holder.pid}  ${holder.sessions} ${holder.sessions === 1 ? 'session' : 'sessions'}  since ${holder.since}`)
  }
  const turn = report.oldestOpenTurn
  lines.push('', turn
    ? `oldest open turn: session ${turn.sessionId} turn ${turn.turn}, started ${turn.startedAt}, held by ${turn.host}:${turn.pid}`
    : 'oldest open turn: none (no held session is in a turn)')
  lines.push('', `worst cached share this hour: ${report.worstCachedShare.length ? '' : 'none (no held session sent a request in the last hour)'}`.trimEnd())
  for (const share of report.worstCachedShare) {
    lines.push(`  ${share.sessionId}  ${percent(share.cachedShare)} cached  (${share.cacheReadTokens} of ${share.inputTokens} prompt tokens, `
      + `${share.requests} ${share.requests === 1 ? 'request' : 'requests'}${share.emulated ? ', emulated' : ''})  ${share.host}:${share.pid}`)
  }
  return `${lines.join('\n')}\n`
}
