import { readFile, writeFile } from 'node:fs/promises'

/** Writes a copy of the session log `from` whose usage records carry `emulated: true`, as the offline model's do. */
export async function writeEmulatedCopy(from: string, to: string): Promise<void> {
  const lines = (await readFile(from, 'utf8')).trimEnd().split('\n').map((line) => {
    const event = JSON.parse(line)
    if (event.data?.usage) event.data.usage.emulated = true
    return JSON.stringify(event)
  })
  await writeFile(to, `${lines.join('\n')}\n`)
}
