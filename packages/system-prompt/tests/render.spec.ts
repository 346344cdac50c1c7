import { describe, expect, it } from 'vitest'
import { SystemPromptError } from '../src/index.ts'
import { interpolate } from '../src/interpolate.ts'
import { renderPrompt } from '../src/render.ts'

const vars = { model: 'm1', cwd: '/w', tricky: '{{model}}', none: undefined }
const render = (text: string) => interpolate(text, vars)
const codeOf = (fn: () => unknown) => { try { fn() } catch (e) { return (e as SystemPromptError).code } }

describe('renderPrompt and interpolation', () => {
  it('substitutes known variables', () => {
    expect(render('model {{model}} in {{cwd}}.')).toBe('model m1 in /w.')
  })

  it('never re-scans substituted values', () => {
    expect(render('x {{tricky}} y')).toBe('x {{model}} y')
  })

  it('throws on an unknown name, naming it and the registered ones', () => {
    expect(() => render('{{nope}}')).toThrow('unknown prompt variable "nope" in prompt; registered variables: cwd, model, none, tricky')
  })

  it('uses own-property lookup, so {{constructor}} is unknown', () => {
    expect(codeOf(() => render('{{constructor}}'))).toBe('UNKNOWN_VARIABLE')
    expect(codeOf(() => render('{{toString}}'))).toBe('MALFORMED_PLACEHOLDER')
    expect(codeOf(() => interpolate('{{constructor}}', Object.create(null)))).toBe('UNKNOWN_VARIABLE')
  })

  it('throws on a variable without a value', () => {
    expect(() => render('{{none}}')).toThrow('prompt variable "none" in prompt has no value in this assembly')
  })

  it.each(['{{ model }}', '{{Model}}', '{{}}', '{{a-b}}', '{{{model}}'])('throws on the malformed group %j', (text) => {
    expect(codeOf(() => render(text))).toBe('MALFORMED_PLACEHOLDER')
  })

  it('keeps a lone {{ with no later }} literal', () => {
    expect(render('a {{model}} then {{ unterminated')).toBe('a m1 then {{ unterminated')
    expect(render('}} {{')).toBe('}} {{')
  })

  it('drops empty sections, joins with a blank line, and leaves interpolate: false sections verbatim', () => {
    const text = renderPrompt({
      sections: [
        { name: 'a', text: 'A {{model}}' },
        { name: 'empty', text: '{{blank}}' },
        { name: 'raw', text: 'keep {{this}}', interpolate: false },
      ],
      variables: { model: 'm', blank: '' },
    })
    expect(text).toBe('A m\n\nkeep {{this}}')
  })

  it('names the section in errors', () => {
    expect(() => renderPrompt({ sections: [{ name: 'tools:intro', text: '{{x}}' }], variables: {} }))
      .toThrow(/in section "tools:intro"/)
  })
})
