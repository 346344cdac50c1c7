import { COMPACTION_INSTRUCTION, SUMMARY_PREFIX } from 'dsh-core'
import type { ProjectedMessage } from 'dsh-llm'
import { describe, expect, it } from 'vitest'
import { compactionReply } from '../src/index.ts'

const ask = (text: string): ProjectedMessage => ({ role: 'user', text })
const instruction = ask(COMPACTION_INSTRUCTION)

describe('the offline answer to a compaction request', () => {
  it('lists the user requests, the tools called and the last answer, each on one line', () => {
    const reply = compactionReply([
      ask('find the bug'),
      { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'grep', arguments: {} }, { id: 'c2', name: 'grep', arguments: {} }] },
      { role: 'tool', id: 'c1', name: 'grep', output: 'x', isError: false },
      { role: 'tool', id: 'c2', name: 'grep', output: 'y', isError: false },
      { role: 'assistant', text: 'It is in\nthe pager.', toolCalls: [{ id: 'c3', name: 'read_file', arguments: {} }] },
      { role: 'tool', id: 'c3', name: 'read_file', output: 'z', isError: false },
      instruction,
    ])
    expect(reply).toEqual({
      text: '6 messages compacted.\n- user asked: find the bug\n- tools called: grep ×2, read_file ×1\n- last answer: It is in the pager.',
      toolCalls: [],
    })
  })

  it('is the same for the same conversation, carries an earlier summary\'s requests forward and keeps only the last six', () => {
    const earlier = ask(`${SUMMARY_PREFIX}3 messages compacted.\n- user asked: one\n- user asked: two\n- last answer: ok`)
    const messages = [earlier, ...['three', 'four', 'five', 'six', 'seven'].map(ask), instruction]
    const text = compactionReply(messages).text
    expect(compactionReply(messages).text).toBe(text)
    expect(text.split('\n').filter((line) => line.startsWith('- user asked:'))).toEqual(
      ['two', 'three', 'four', 'five', 'six', 'seven'].map((item) => `- user asked: ${item}`),
    )
  })

  it('cuts a long request to one line of 80 characters', () => {
    const text = compactionReply([ask(`${'word '.repeat(40)}\nend`), instruction]).text
    const line = text.split('\n')[1]!
    expect(line.length).toBe('- user asked: '.length + 80)
    expect(line.endsWith('…')).toBe(true)
  })
})
