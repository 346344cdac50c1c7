import fc from 'fast-check'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultSessionRoot, dshStateFolder } from '../src/index.ts'
import { stateHome, workingFolderKey } from '../src/state-folder.ts'

describe('the state folder', () => {
  it('is $XDG_STATE_HOME when it is absolute', () => {
    expect(stateHome({ XDG_STATE_HOME: '/x/state', HOME: '/home/ana' })).toBe('/x/state')
    expect(dshStateFolder({ XDG_STATE_HOME: '/x/state' })).toBe('/x/state/dsh')
  })

  it.each([undefined, '', 'relative/state', './state'])('falls back to $HOME/.local/state when XDG_STATE_HOME is %j', (xdg) => {
    expect(stateHome({ XDG_STATE_HOME: xdg, HOME: '/home/ana' })).toBe('/home/ana/.local/state')
  })

  it('uses the account\'s home folder when HOME is unset or relative', () => {
    expect(stateHome({})).toBe(join(userInfo().homedir, '.local', 'state'))
    expect(stateHome({ HOME: 'nowhere' })).toBe(join(userInfo().homedir, '.local', 'state'))
  })

  it('puts sessions under dsh/sessions/<key of the working folder>', () => {
    expect(defaultSessionRoot('/home/ana/src/shop', { XDG_STATE_HOME: '/s' }))
      .toMatch(/^\/s\/dsh\/sessions\/home-ana-src-shop-[0-9a-f]{10}$/)
  })
})

describe('workingFolderKey', () => {
  it('reads like the path and tells apart paths that read alike', () => {
    const a = workingFolderKey('/srv/my project')
    const b = workingFolderKey('/srv/my/project')
    expect(a).toMatch(/^srv-my-project-[0-9a-f]{10}$/)
    expect(b).toMatch(/^srv-my-project-[0-9a-f]{10}$/)
    expect(a).not.toBe(b)
  })

  it('keeps the end of a long path and names the root folder', () => {
    const key = workingFolderKey(`/${'a'.repeat(100)}/the-project`)
    expect(key).toMatch(/^a+-the-project-[0-9a-f]{10}$/)
    expect(key.length).toBe(60 + 11)
    expect(workingFolderKey('/')).toMatch(/^root-[0-9a-f]{10}$/)
  })

  it('is one safe folder name, and different for different folders (property)', () => {
    // `.` and `..` parts would be resolved away, naming another folder
    const part = fc.string({ minLength: 1, maxLength: 12 }).filter((text) => !/^\.+$/.test(text))
    fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), part, (parts, extra) => {
      const path = '/' + parts.map((part) => part.replace(/\//g, '_')).join('/')
      const other = path + '/' + extra.replace(/\//g, '_')
      const key = workingFolderKey(path)
      expect(key).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(key).toBe(workingFolderKey(path))
      if (other !== path) expect(workingFolderKey(other)).not.toBe(key)
    }))
  })
})

describe('the test run', () => {
  it('points XDG_STATE_HOME at a throwaway folder, so no test writes the user\'s own (.ci/vitest-state.mjs)', () => {
    expect(process.env.XDG_STATE_HOME).toMatch(/dsh-test-state-/)
  })
})
