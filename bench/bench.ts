// `npm run bench`: the benchmark table, with results in bench/results/.
import path from 'node:path'
import { bench } from '../lib/bench'

bench(path.join(__dirname, 'results')).catch((e) => {
  console.error(e)
  process.exitCode = 1
})
