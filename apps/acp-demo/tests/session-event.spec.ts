import { Session, SessionError } from 'dsh-session'
import { describe, expect, it } from 'vitest'
import { CREATED_EVENT } from '../src/session-list.ts'

describe('the acp/session event', () => {
  it('is validated by the schema the door registers: cwd is a string, and nothing else is logged with it', () => {
    const session = new Session('s')
    expect(() => session.append(CREATED_EVENT, { cwd: 5 } as never))
      .toThrow(new SessionError('INVALID_EVENT', 'acp/session: field "cwd" must be a string, got 5'))
    expect(() => session.append(CREATED_EVENT, { cwd: '/w', title: 'x' } as never)).toThrow('field "title" must be absent (unknown field; valid fields: cwd)')
    expect(session.append(CREATED_EVENT, { cwd: '/w' }).data).toEqual({ cwd: '/w' })
  })
})
