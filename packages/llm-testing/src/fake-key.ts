import { randomBytes } from 'node:crypto'

/** An environment variable set to a fake API key for one test. */
export interface FakeApiKey {
  name: string
  value: string
  /** Removes the variable. */
  cleanup(): void
}

/** Sets a fresh variable `<namePrefix>_<random>` to a fresh `<valuePrefix><random>` key; `cleanup()` removes it. */
export function fakeApiKey(namePrefix: string, valuePrefix: string): FakeApiKey {
  const name = `${namePrefix}_${randomBytes(4).toString('hex').toUpperCase()}`
  const value = `${valuePrefix}${randomBytes(12).toString('hex')}`
  process.env[name] = value
  return { name, value, cleanup: () => { delete process.env[name] } }
}
