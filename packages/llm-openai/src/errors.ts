import { HttpAdapterError, type HttpAdapterErrorCode } from 'dsh-llm/http'

/** Every way `dsh-llm-openai` can fail; tests and callers switch on `code`. */
export type OpenAIAdapterErrorCode = HttpAdapterErrorCode

/** The one error class of `dsh-llm-openai`. Messages never contain the API key. */
export class OpenAIAdapterError extends HttpAdapterError {
  override name = 'OpenAIAdapterError'
}
