import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, SendRequestOptions } from '@agentclientprotocol/sdk'
import type { PermissionAsker, PermissionRequest } from 'dsh-agent-loop'
import type { PermissionAnswer } from 'dsh-session'

/** The ACP option offered for each answer; `optionId` is the answer itself. */
export const PERMISSION_OPTIONS: Readonly<Record<PermissionAnswer, PermissionOption>> = Object.freeze({
  'allow-once': { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  'allow-always': { optionId: 'allow-always', name: 'Allow always in this session', kind: 'allow_always' },
  'deny': { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
})

/** Sends `session/request_permission` to the client that runs the session. */
export type RequestPermission = (params: RequestPermissionRequest, options: SendRequestOptions) => Promise<RequestPermissionResponse>

/** The `session/request_permission` params for one question of the loop. */
export function permissionParams(sessionId: string, request: PermissionRequest): RequestPermissionRequest {
  return {
    sessionId,
    // the tool_call the client saw already, now waiting for its answer
    toolCall: { toolCallId: request.id, title: request.name, status: 'pending', rawInput: request.arguments },
    options: request.options.map((answer) => PERMISSION_OPTIONS[answer]),
  }
}

/**
 * Asks the ACP client, one `session/request_permission` per call. A `session/cancel` aborts the turn's
 * signal, which cancels the open request (`$/cancel_request`) and stops waiting for it; a `cancelled`
 * outcome, or an option that was not offered, denies the call.
 */
export function clientAsker(sessionId: string, send: RequestPermission): PermissionAsker {
  return async (request) => {
    const response = await send(permissionParams(sessionId, request), { cancellationSignal: request.signal, stopWaitingOnCancel: true })
    const outcome = response?.outcome
    if (outcome?.outcome === 'cancelled') throw new Error('the client cancelled the permission request')
    if (outcome?.outcome !== 'selected') throw new Error(`the client answered session/request_permission with ${JSON.stringify(response)}`)
    const answer = request.options.find((offered) => PERMISSION_OPTIONS[offered].optionId === outcome.optionId)
    if (!answer) {
      throw new Error(`the client chose option ${JSON.stringify(outcome.optionId)}, not one of ${request.options.map((offered) => PERMISSION_OPTIONS[offered].optionId).join(', ')}`)
    }
    return answer
  }
}
