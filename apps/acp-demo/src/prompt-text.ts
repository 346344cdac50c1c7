import type { ContentBlock } from '@agentclientprotocol/sdk'
import { AcpDemoError } from './errors.ts'

/** Content block types a prompt may carry: the ACP baseline, which is all `initialize` advertises. */
export const SUPPORTED_BLOCKS = ['text', 'resource_link'] as const

/**
 * The user text of a `session/prompt`: text blocks as written, resource links as `[name](uri)`, joined
 * without separators (clients split one message around mentions). Other block types were not advertised,
 * so they are refused rather than silently dropped.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks.map((block, index) => {
    if (block.type === 'text') return block.text
    if (block.type === 'resource_link') return `[${block.name}](${block.uri})`
    throw new AcpDemoError('UNSUPPORTED_CONTENT',
      `prompt[${index}] is a "${block.type}" block; supported block types: ${SUPPORTED_BLOCKS.join(', ')}`,
      { index, type: block.type })
  }).join('')
}
