import { HttpAdapterError, type HttpAdapterErrorCode } from 'dsh-llm/http'

/** Every way `dsh-llm-anthropic` can fail; tests and callers switch on `code`. */
export type AnthropicAdapterErrorCode = HttpAdapterErrorCode

/** The one error class of `dsh-llm-anthropic`. Messages never contain the API key. */
export class AnthropicAdapterError extends HttpAdapterError {
  override name = 'AnthropicAdapterError'
}
