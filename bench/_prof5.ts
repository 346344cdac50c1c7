import { run } from './loop.ts'
for (let i = 0; i < 3; i++) console.log(await run())
