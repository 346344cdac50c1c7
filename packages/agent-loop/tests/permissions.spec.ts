import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import type { PermissionAsker, PermissionRequest } from '../src/permission-gate.ts'
import type { PermissionsConfig } from '../src/permission-policy.ts'
import { requestBytes, setup, tempRoot, types } from './setup.ts'

/** Tools `name(args)` with the given MCP-style annotations. */
function annotatedTools(tools: [string, { readOnlyHint?: boolean; destructiveHint?: boolean }?][]) {
  return {
    name: 'annotated-tools',
    inject: ['tools'],
    apply(ctx: Context) {
      for (const [name, annotations] of tools) {
        ctx.tools.register({ name, description: `The ${name} tool.`, parameters: { type: 'object' }, execute: () => `ran ${name}`, ...annotations && { annotations } })
      }
    },
  }
}

async function agentWith(permissions: Partial<PermissionsConfig> | undefined, tools: Parameters<typeof annotatedTools>[0], root?: string, id = 'p') {
  const spine = await setup({ root, loop: permissions ? { permissions: permissions as PermissionsConfig } : {} })
  await spine.ctx.plugin(annotatedTools(tools))
  return { ...spine, agent: await spine.ctx.agentLoop.createAgent({ id }) }
}

const decisions = (events: readonly { type: string; data: any }[]) =>
  events.filter((event) => event.type === 'permission/decision').map(({ data }) => {
    const { turn: _t, step: _s, id: _i, ...rest } = data
    return rest
  })

/** An asker that answers from a list and records every request. */
function answering(...answers: string[]) {
  const asked: PermissionRequest[] = []
  const ask: PermissionAsker = async (request) => {
    asked.push(request)
    return answers.shift() as never
  }
  return { ask, asked }
}

describe('the permission policy', () => {
  it('runs every call and logs nothing without a policy', async () => {
    const { agent } = await agentWith(undefined, [['write']])
    expect((await agent.prompt('/call write {}')).text).toBe('tool write returned: ran write')
    expect(types(agent.session.events())).not.toContain('permission/decision')
  })

  it('decides by deny, then allow (names and prefix groups, deny wins), then the default', async () => {
    const { agent } = await agentWith({ default: 'deny', allow: ['mcp__memory__*', 'read_file'], deny: ['mcp__memory__delete'] },
      [['mcp__memory__read'], ['mcp__memory__delete'], ['read_file'], ['other']])
    const texts = []
    for (const name of ['mcp__memory__read', 'mcp__memory__delete', 'read_file', 'other']) texts.push((await agent.prompt(`/call ${name} {}`)).text)
    expect(texts).toEqual([
      'tool mcp__memory__read returned: ran mcp__memory__read',
      'tool mcp__memory__delete returned: tool "mcp__memory__delete" is denied by the permission policy (permissions.deny: "mcp__memory__delete"); the call did not run',
      'tool read_file returned: ran read_file',
      'tool other returned: tool "other" is denied by the permission policy (permissions.default: deny); the call did not run',
    ])
    expect(decisions(agent.session.events())).toEqual([
      { name: 'mcp__memory__read', decision: 'allow', by: 'policy', rule: 'permissions.allow', pattern: 'mcp__memory__*' },
      { name: 'mcp__memory__delete', decision: 'deny', by: 'policy', rule: 'permissions.deny', pattern: 'mcp__memory__delete' },
      { name: 'read_file', decision: 'allow', by: 'policy', rule: 'permissions.allow', pattern: 'read_file' },
      { name: 'other', decision: 'deny', by: 'policy', rule: 'permissions.default' },
    ])
  })

  it('logs the decision between the call and its result, and a denied call is an error result the turn goes on with', async () => {
    const { agent } = await agentWith({ default: 'deny' }, [['write']])
    const result = await agent.prompt('/call write {}')
    expect(result.reason).toBe('done')
    const events = agent.session.events()
    const at = types(events).indexOf('permission/decision')
    expect(types(events).slice(at - 1, at + 2)).toEqual(['tool/call', 'permission/decision', 'tool/result'])
    expect(events[at + 1]!.data).toMatchObject({ name: 'write', isError: true })
  })

  it('without an asker denies a call that needs asking, naming the policy key to change', async () => {
    const { agent } = await agentWith({ default: 'ask' }, [['write']])
    const result = await agent.prompt('/call write {}')
    expect(result.reason).toBe('done')
    expect(result.text).toBe('tool write returned: tool "write" needs permission and there is no one to ask here (no terminal, no client), so it did not run; '
      + 'to let it run without asking, add it to permissions.allow in the app file (permissions.allow: ["write"]) or set permissions.default: allow')
    expect(decisions(agent.session.events())).toEqual([{ name: 'write', decision: 'deny', by: 'unanswered' }])
  })

  it('asks once per call: allow once asks again next time, allow always does not, deny refuses', async () => {
    const { agent } = await agentWith({}, [['write'], ['edit']])
    const { ask, asked } = answering('allow-once', 'allow-once', 'allow-always', 'deny')
    expect((await agent.prompt('/call write {"a":1}', { askPermission: ask })).text).toBe('tool write returned: ran write')
    await agent.prompt('/call write {}', { askPermission: ask })
    await agent.prompt('/call edit {}', { askPermission: ask })
    await agent.prompt('/call edit {}', { askPermission: ask })
    const refused = await agent.prompt('/call write {}', { askPermission: ask })
    expect(refused.text).toBe('tool write returned: the user denied the call of tool "write"; it did not run')
    expect(asked.map((request) => request.name)).toEqual(['write', 'write', 'edit', 'write'])
    expect(asked[0]).toMatchObject({ turn: 1, step: 1, name: 'write', arguments: { a: 1 }, options: ['allow-once', 'allow-always', 'deny'], destructive: false })
    expect(asked[0]!.id).toBe(agent.session.events().find((event) => event.type === 'tool/call')!.data.id)
    expect(decisions(agent.session.events()).map((d: any) => [d.name, d.by, d.answer])).toEqual([
      ['write', 'user', 'allow-once'], ['write', 'user', 'allow-once'], ['edit', 'user', 'allow-always'], ['edit', 'session', undefined], ['write', 'user', 'deny'],
    ])
  })

  it('remembers the always answers of a resumed session', async () => {
    const root = await tempRoot()
    const first = await agentWith({}, [['write']], root, 'kept')
    await first.agent.prompt('/call write {}', { askPermission: answering('allow-always').ask })
    await first.dispose()
    const second = await agentWith({}, [['write']], root, 'kept')
    const { ask, asked } = answering()
    expect((await second.agent.prompt('/call write {}', { askPermission: ask })).text).toBe('tool write returned: ran write')
    expect(asked).toEqual([])
    expect(decisions(second.agent.session.events()).at(-1)).toEqual({ name: 'write', decision: 'allow', by: 'session' })
  })

  it('allows a readOnlyHint tool unless denied, and asks a destructiveHint tool on every call without an always option', async () => {
    const { agent } = await agentWith({ deny: ['mcp__fs__read_secret'] },
      [['mcp__fs__read', { readOnlyHint: true }], ['mcp__fs__read_secret', { readOnlyHint: true }], ['mcp__fs__write', { destructiveHint: true }]])
    const { ask, asked } = answering('allow-once', 'allow-once')
    await agent.prompt('/call mcp__fs__read {}', { askPermission: ask })
    await agent.prompt('/call mcp__fs__read_secret {}', { askPermission: ask })
    await agent.prompt('/call mcp__fs__write {}', { askPermission: ask })
    await agent.prompt('/call mcp__fs__write {}', { askPermission: ask })
    expect(asked.map((request) => [request.name, request.options, request.destructive])).toEqual([
      ['mcp__fs__write', ['allow-once', 'deny'], true], ['mcp__fs__write', ['allow-once', 'deny'], true],
    ])
    expect(decisions(agent.session.events()).slice(0, 2)).toEqual([
      { name: 'mcp__fs__read', decision: 'allow', by: 'policy', rule: 'readOnlyHint' },
      { name: 'mcp__fs__read_secret', decision: 'deny', by: 'policy', rule: 'permissions.deny', pattern: 'mcp__fs__read_secret' },
    ])
  })

  it('treats an answer it did not offer, or an asker that fails, as a denial', async () => {
    const { agent } = await agentWith({}, [['write', { destructiveHint: true }]])
    const offered = await agent.prompt('/call write {}', { askPermission: answering('allow-always').ask })
    expect(offered.text).toContain('the answer "allow-always" is not one of allow-once, deny')
    const failed = await agent.prompt('/call write {}', { askPermission: async () => { throw new Error('the terminal went away') } })
    expect(failed.text).toContain('asking failed (the terminal went away)')
    expect(decisions(agent.session.events()).map((d: any) => d.by)).toEqual(['unanswered', 'unanswered'])
  })

  it('ends the turn cancelled when it is cancelled while the question is open, balanced, and the tool never runs', async () => {
    const { agent } = await agentWith({}, [['write']])
    let signalled = false
    const running = agent.prompt('/call write {}', {
      askPermission: (request) => new Promise((_resolve, reject) => request.signal.addEventListener('abort', () => { signalled = true; reject(new Error('stopped')) })),
    })
    await new Promise((resolve) => setTimeout(resolve, 30))
    agent.cancel()
    const result = await running
    expect(result.reason).toBe('cancelled')
    expect(signalled).toBe(true)
    const events = agent.session.events()
    expect(types(events).slice(-5)).toEqual(['tool/call', 'permission/decision', 'tool/result', 'step/end', 'turn/end'])
    expect(decisions(events)).toEqual([{ name: 'write', decision: 'deny', by: 'cancelled' }])
    expect(events.find((event) => event.type === 'tool/result')!.data).toMatchObject({ output: 'tool "write" was cancelled', isError: true })
  })

  it('leaves the request unchanged: the same header and messages with and without a policy', async () => {
    const bare = await agentWith(undefined, [['write'], ['read', { readOnlyHint: true }]])
    const ruled = await agentWith({ default: 'ask', allow: ['write'], deny: ['read'] }, [['write'], ['read', { readOnlyHint: true }]])
    await bare.agent.prompt('/call write {}')
    await ruled.agent.prompt('/call write {}')
    const header = (agent: typeof bare.agent) => agent.session.events().filter((event) => event.type === 'request/header').map((event) => event.data)
    expect(header(ruled.agent)).toEqual(header(bare.agent))
    expect(requestBytes(ruled.agent.lastRequest)).toBe(requestBytes(bare.agent.lastRequest))
  })

  it.each([
    [{ allow: ['x*y'] }, 'permissions.allow[0] is "x*y": "*" may only end a pattern, as in "mcp__github__*" (a prefix group)'],
    [{ deny: ['a', '*'] }, 'permissions.deny[1] is "*": a bare "*" matches everything; use permissions.default instead'],
    [{ allow: [''] }, 'permissions.allow[0] is "": must be a non-empty tool name'],
    [{ allow: ['a', 'a'] }, 'permissions.allow lists "a" twice'],
    [{ allow: ['a*'], deny: ['a*'] }, 'permissions lists "a*" in both allow and deny; keep it in one (deny would win)'],
    [{ deny: ['read file'] }, 'permissions.deny[0] is "read file", which can never match: no tool can have this name (tool names match ^[a-zA-Z0-9_-]{1,64}$)'],
    [{ allow: ['r'.repeat(65)] }, `permissions.allow[0] is "${'r'.repeat(65)}", which can never match: no tool can have this name (tool names match ^[a-zA-Z0-9_-]{1,64}$; it has 65 characters)`],
    [{ deny: ['mcp__my.fs__echo'] }, 'permissions.deny[0] is "mcp__my.fs__echo", which can never match: no tool can have this name (tool names match ^[a-zA-Z0-9_-]{1,64}$); the model sees tool "echo" of MCP server "my.fs" as "mcp__my_fs__echo": write that'],
    [{ deny: ['read.*'] }, 'permissions.deny[0] is "read.*", which can never match: no tool name starts with "read." (tool names match ^[a-zA-Z0-9_-]{1,64}$)'],
    [{ allow: [`${'g'.repeat(65)}*`] }, `permissions.allow[0] is "${'g'.repeat(65)}*", which can never match: no tool name starts with a 65-character prefix (tool names match ^[a-zA-Z0-9_-]{1,64}$)`],
  ])('refuses the policy %j with one line', async (permissions, message) => {
    await expect(setup({ loop: { permissions: { default: 'ask', allow: [], deny: [], ...permissions } } })).rejects.toThrow(message)
  })
})
