import { run } from './run.ts'

// The bin's entry: print, then exit once stdout has drained so a piped --json reader gets every byte.
const result = await run(process.argv.slice(2))
if (result.stderr) process.stderr.write(result.stderr)
process.stdout.write(result.stdout, () => process.exit(result.code))
