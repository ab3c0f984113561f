// Run by bench/profile.sh: our rows only (no floor process, no peers), those BENCH_ONLY names,
// with results written to the directory given.
import { bench } from './lib'

bench(process.argv[2]).catch((e) => {
  console.error(e)
  process.exitCode = 1
})
