import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js'

/** What one MCP call result becomes for the model: text, and whether the server marked it an error. */
export interface ConvertedResult {
  text: string
  isError: boolean
}

/** Bytes encoded by a base64 string (padding and whitespace excluded). */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '')
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding)
}

const mime = (type: string | undefined) => (type ? ` ${type}` : '')

function placeholder(block: ContentBlock): string {
  switch (block.type) {
    case 'image':
    case 'audio':
      return `[${block.type}${mime(block.mimeType)}, ${base64Bytes(block.data)} bytes]`
    case 'resource': {
      const { resource } = block
      const bytes = 'text' in resource && typeof resource.text === 'string'
        ? Buffer.byteLength(resource.text, 'utf8')
        : base64Bytes(String((resource as { blob?: unknown }).blob ?? ''))
      return `[resource ${resource.uri}${mime(resource.mimeType)}, ${bytes} bytes]`
    }
    case 'resource_link':
      return `[resource link ${block.uri}${mime(block.mimeType)}${typeof block.size === 'number' ? `, ${block.size} bytes` : ''}]`
    default:
      return `[${String((block as { type?: unknown }).type)} content]`
  }
}

/**
 * Text blocks as they are, other blocks as a one-line placeholder naming their type and size (the model
 * cannot use base64 bytes, and they would crowd out the context), all joined with newlines. Structured
 * content is used as JSON when the result has no text block; the protocol asks servers that send both to
 * repeat the structured content as text, so taking both would say it twice.
 */
export function convertResult(result: CallToolResult): ConvertedResult {
  const blocks = Array.isArray(result.content) ? result.content : []
  const parts = blocks.map((block) => (block.type === 'text' ? block.text : placeholder(block)))
  const hasText = blocks.some((block) => block.type === 'text')
  if (!hasText && result.structuredContent !== undefined) parts.unshift(JSON.stringify(result.structuredContent))
  return { text: parts.join('\n'), isError: result.isError === true }
}
