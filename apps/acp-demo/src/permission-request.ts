import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, SendRequestOptions } from '@agentclientprotocol/sdk'
import type { PermissionAnswer, PermissionAsker, PermissionRequest } from 'dsh-harness'
import type { PermissionReply, ToolKind } from './harness-types.ts'

/** The ACP option offered for each answer; `optionId` is the answer itself. */
export const PERMISSION_OPTIONS: Readonly<Record<PermissionAnswer, PermissionOption>> = Object.freeze({
  'allow-once': { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  'allow-always': { optionId: 'allow-always', name: 'Allow always in this session', kind: 'allow_always' },
  'deny': { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
})

/** Sends `session/request_permission` to the client that runs the session. */
export type RequestPermission = (params: RequestPermissionRequest, options: SendRequestOptions) => Promise<RequestPermissionResponse>

/** The `session/request_permission` params for one question of the loop. */
export function permissionParams(sessionId: string, request: PermissionRequest, kind: ToolKind = 'other'): RequestPermissionRequest {
  return {
    sessionId,
    // the tool_call the client saw already, now waiting for its answer; its kind is what a client's policy
    // decides by (acpx approves read and search calls without asking)
    toolCall: { toolCallId: request.id, title: request.name, kind, status: 'pending', rawInput: request.arguments },
    options: request.options.map((answer) => PERMISSION_OPTIONS[answer]),
  }
}

/**
 * The refusal of a call the client would not allow. ACP does not say whether a person or the client's own
 * policy answered (acpx, by default, rejects every call but a read without asking anyone when it has no
 * terminal), so the words name the client and what it answered, never "the user".
 */
function clientRefusal(name: string, what: string): PermissionReply {
  return { answer: 'deny', refusal: `the client refused the call of tool ${JSON.stringify(name)}: ${what} (its user's answer, or its own permission policy's without asking anyone); it did not run` }
}

/**
 * Asks the ACP client, one `session/request_permission` per call. A `session/cancel` aborts the turn's
 * signal, which cancels the open request (`$/cancel_request`) and stops waiting for it. A `cancelled`
 * outcome while the turn goes on, or the reject option, refuses the call in the client's name; an option
 * that was not offered denies it as unanswered.
 */
export function clientAsker(sessionId: string, send: RequestPermission, kindOf: (name: string) => ToolKind = () => 'other'): PermissionAsker {
  return async (request) => {
    const params = permissionParams(sessionId, request, kindOf(request.name))
    const response = await send(params, { cancellationSignal: request.signal, stopWaitingOnCancel: true })
    const outcome = response?.outcome
    if (outcome?.outcome === 'cancelled') return clientRefusal(request.name, 'it answered the permission request with "cancelled"')
    if (outcome?.outcome !== 'selected') throw new Error(`the client answered session/request_permission with ${JSON.stringify(response)}`)
    const answer = request.options.find((offered) => PERMISSION_OPTIONS[offered].optionId === outcome.optionId)
    if (!answer) {
      throw new Error(`the client chose option ${JSON.stringify(outcome.optionId)}, not one of ${request.options.map((offered) => PERMISSION_OPTIONS[offered].optionId).join(', ')}`)
    }
    if (answer === 'deny') return clientRefusal(request.name, `it chose the option ${JSON.stringify(PERMISSION_OPTIONS.deny.name)}`)
    return answer
  }
}
