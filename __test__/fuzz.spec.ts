import test from 'ava'
import { describeFailure, fuzz } from '../fuzz/run'

// A short, seeded run of the fuzzer (fuzz/README.md): the public API, every raw export, and
// model-checked sequences of valid operations, each batch in a child process; worker threads are
// terminated with work queued among the api cases. Any crash, hang,
// untyped error, corruption or leak fails this test with its one-line repro.
test('a seeded fuzz run finds no crash, hang, untyped error, corruption or leak', async (t) => {
  t.timeout(110_000)
  const r = await fuzz({ seed: 20_020, runs: 100, batches: 2, modes: ['api', 'raw', 'model'], batchTimeoutMs: 90_000, caseTimeoutMs: 20_000, totalMs: 0, parallel: 1 })
  t.log(`${r.cases} cases in ${r.batches} batches, ${r.workers} workers terminated, ${(r.ms / 1000).toFixed(1)} s`)
  t.deepEqual(r.failures.map(describeFailure), [])
  t.is(r.cases, 100 * 2 * 3, 'every case ran')
  // The api mode's worker move ran: worker threads terminated with work queued (helpers.js).
  t.true(r.workers >= 10, `only ${r.workers} workers were terminated`)
})
