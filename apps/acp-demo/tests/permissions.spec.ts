import { methods } from '@agentclientprotocol/sdk'
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk'
import { describe, expect, it } from 'vitest'
import { appFolder, appYaml, checkBalanced, drive, messageText, openSession, prompt, sessionEvents, until } from './harness.ts'

const POLICY = 'permissions: { default: ask, deny: [zeta] }'

/** A client that answers each question with the next option id (or waits for cancellation on 'wait'). */
function answering(...choices: string[]) {
  const asked: RequestPermissionRequest[] = []
  const onPermission = async (params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> => {
    asked.push(params)
    const choice = choices.shift()
    if (choice === 'wait') {
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
      return { outcome: { outcome: 'cancelled' } }
    }
    return { outcome: { outcome: 'selected', optionId: choice! } }
  }
  return { asked, onPermission }
}

const decisions = (events: { type: string; data: any }[]) =>
  events.filter((event) => event.type === 'permission/decision').map(({ data }) => [data.name, data.decision, data.by, data.answer ?? data.rule])

describe('permissions over ACP (the real bin, the SDK client)', () => {
  it('asks with session/request_permission: allow once, allow always, and a policy deny that asks nothing', { timeout: 30_000 }, async () => {
    const { dir, file } = await appFolder(appYaml([POLICY]))
    const { asked, onPermission } = answering('allow-once', 'allow-always')
    // whether the client had heard of the tool call when it was asked about it
    const known: boolean[] = []
    const driven = drive([file], {
      onPermission: (params, signal) => {
        known.push(driven.updates.some((n) => n.update.sessionUpdate === 'tool_call' && n.update.toolCallId === params.toolCall.toolCallId))
        return onPermission(params, signal)
      },
    })
    const sessionId = await openSession(driven)
    expect(await prompt(driven, sessionId, '/call lookup {"word":"vole"}')).toMatchObject({ stopReason: 'end_turn' })
    expect(asked).toHaveLength(1)
    const call = driven.updates.find((n) => n.update.sessionUpdate === 'tool_call')!.update as { toolCallId: string }
    expect(asked[0]).toEqual({
      sessionId,
      toolCall: { toolCallId: call.toolCallId, title: 'lookup', kind: 'other', status: 'pending', rawInput: { word: 'vole' } },
      options: [
        { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'allow-always', name: 'Allow always in this session', kind: 'allow_always' },
        { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
      ],
    })
    expect(known).toEqual([true])
    await prompt(driven, sessionId, '/call lookup {}')
    await prompt(driven, sessionId, '/call lookup {}')
    await prompt(driven, sessionId, '/call zeta {}')
    expect(asked).toHaveLength(2)
    expect(messageText(driven.updates, sessionId)).toContain('tool zeta returned: tool "zeta" is denied by the permission policy (permissions.deny: "zeta")')
    expect(messageText(driven.updates, sessionId).match(/tool lookup returned: a small furry animal/g)).toHaveLength(3)
    expect(await driven.stop()).toBe(0)
    const events = await sessionEvents(dir, sessionId)
    expect(decisions(events)).toEqual([
      ['lookup', 'allow', 'user', 'allow-once'], ['lookup', 'allow', 'user', 'allow-always'], ['lookup', 'allow', 'session', undefined],
      ['zeta', 'deny', 'policy', 'permissions.deny'],
    ])
  })

  it('remembers an "allow always" answer in a session loaded by a new process (session/load)', { timeout: 40_000 }, async () => {
    const { dir, file } = await appFolder(appYaml([POLICY]))
    const first = drive([file], answering('allow-always'))
    const sessionId = await openSession(first)
    await prompt(first, sessionId, '/call lookup {}')
    expect(await first.stop()).toBe(0)
    const { asked, onPermission } = answering()
    const second = drive([file], { onPermission })
    await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] })
    expect(await prompt(second, sessionId, '/call lookup {}')).toMatchObject({ stopReason: 'end_turn' })
    expect(asked).toEqual([])
    expect(await second.stop()).toBe(0)
    expect(decisions(await sessionEvents(dir, sessionId))).toEqual([['lookup', 'allow', 'user', 'allow-always'], ['lookup', 'allow', 'session', undefined]])
  })

  it('gives a rejected call an error result the turn goes on with', { timeout: 30_000 }, async () => {
    const { file } = await appFolder(appYaml([POLICY]))
    const driven = drive([file], answering('deny'))
    const sessionId = await openSession(driven)
    expect(await prompt(driven, sessionId, '/call lookup {}')).toMatchObject({ stopReason: 'end_turn' })
    const result = driven.updates.find((n) => n.update.sessionUpdate === 'tool_call_update')!.update as { status: string }
    expect(result.status).toBe('failed')
    // ACP does not say whether a person or the client's own policy chose the reject option
    expect(messageText(driven.updates, sessionId)).toBe('tool lookup returned: the client refused the call of tool "lookup": it chose the option "Reject" '
      + '(its user\'s answer, or its own permission policy\'s without asking anyone); it did not run')
    expect(await driven.stop()).toBe(0)
  })

  it('honours session/cancel while the question is open: the request is cancelled, the turn stops, the log is balanced', { timeout: 30_000 }, async () => {
    const { dir, file } = await appFolder(appYaml([POLICY]))
    const { asked, onPermission } = answering('wait')
    const driven = drive([file], { onPermission })
    const sessionId = await openSession(driven)
    const running = prompt(driven, sessionId, '/call lookup {}')
    await until(() => asked.length || undefined, 'the permission request')
    await driven.connection.agent.notify(methods.agent.session.cancel, { sessionId })
    expect(await running).toMatchObject({ stopReason: 'cancelled' })
    expect(await driven.stop()).toBe(0)
    const events = await sessionEvents(dir, sessionId)
    checkBalanced(events)
    expect(decisions(events)).toEqual([['lookup', 'deny', 'cancelled', undefined]])
    expect(events.find((event) => event.type === 'tool/result')!.data).toMatchObject({ isError: true, output: 'tool "lookup" was cancelled' })
  })

  it('denies the call, naming why, when the client cannot answer session/request_permission', { timeout: 30_000 }, async () => {
    const { file } = await appFolder(appYaml([POLICY]))
    const driven = drive([file])
    const sessionId = await openSession(driven)
    expect(await prompt(driven, sessionId, '/call lookup {}')).toMatchObject({ stopReason: 'end_turn' })
    expect(messageText(driven.updates, sessionId)).toMatch(/^tool lookup returned: tool "lookup" needs permission and asking failed \(.+\), so it did not run; .*permissions\.allow/)
    expect(await driven.stop()).toBe(0)
  })
})
