import test from 'ava'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { root, scratchDir } from './helpers'
import { freePort, launch, script } from './launch-helpers'

/**
 * A process as a rank writes itself down: its pid, and where Linux has /proc its start time, for
 * a pid is soon another's (pid_max is 32768 on the CI machines, and the simulator spends a thread
 * id on each stream's worker): `alive` must not take the new owner of the number for the rank.
 */
const whoAmI = `(() => {
  try { const s = require('fs').readFileSync('/proc/self/stat', 'utf8'); return process.pid + ' ' + s.slice(s.lastIndexOf(')') + 2).split(' ')[19] } catch { return String(process.pid) }
})()`

/** Script text: the rank writes `whoAmI` to `dir`/RANK, whole (renamed into place: a poll never reads half). */
const writeWhoAmI = (dir: string): string =>
  `{ const f = require('path').join(${JSON.stringify(dir)}, process.env.RANK); require('fs').writeFileSync(f + '.tmp', ${whoAmI}); require('fs').renameSync(f + '.tmp', f) }`

/** Whether the process `who` (as `whoAmI` wrote it) still runs: not exited, not a zombie, not a pid reused. */
const alive = (who: string): boolean => {
  const [pid, start] = who.split(' ')
  if (start !== undefined) {
    let fields: string[]
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    } catch {
      return false
    }
    return fields[0] !== 'Z' && fields[19] === start
  }
  try {
    process.kill(Number(pid), 0)
    return true
  } catch {
    return false
  }
}

test('each rank gets torchrun\'s environment and its output carries [rank N]', async (t) => {
  const s = script('env.js', `
    const e = process.env
    console.log(JSON.stringify({ RANK: e.RANK, LOCAL_RANK: e.LOCAL_RANK, WORLD_SIZE: e.WORLD_SIZE, LOCAL_WORLD_SIZE: e.LOCAL_WORLD_SIZE,
      GROUP_RANK: e.GROUP_RANK, MASTER_ADDR: e.MASTER_ADDR, MASTER_PORT: e.MASTER_PORT, RESTART_COUNT: e.RESTART_COUNT,
      NVLS: e.NCCL_NVLS_ENABLE, token: (e.CUDA_NODE_STORE_TOKEN || '').length, arg: process.argv[2] }))
    console.error('to stderr')`)
  const r = await launch(['--nproc-per-node', '3', s, 'hello'])
  t.is(r.status, 0, r.stderr)
  const lines = r.stdout.trim().split('\n')
  t.is(lines.length, 3)
  const seen = lines.map((l) => {
    const m = /^\[rank (\d)\] (.*)$/.exec(l)!
    const v = JSON.parse(m[2])
    t.is(v.RANK, m[1])
    return v
  })
  seen.sort((a, b) => a.RANK - b.RANK)
  for (const [i, v] of seen.entries()) {
    t.like(v, { RANK: String(i), LOCAL_RANK: String(i), WORLD_SIZE: '3', LOCAL_WORLD_SIZE: '3', GROUP_RANK: '0', MASTER_ADDR: '127.0.0.1', RESTART_COUNT: '0', NVLS: '0', arg: 'hello' })
    t.true(Number(v.MASTER_PORT) > 0)
    t.true(v.token >= 32, 'a random token')
  }
  t.regex(r.stderr, /\[rank 0\] to stderr/)
})

test('NCCL_NVLS_ENABLE that the user set is kept', async (t) => {
  const s = script('nvls.js', `console.log('nvls=' + process.env.NCCL_NVLS_ENABLE)`)
  const r = await launch([s], { env: { NCCL_NVLS_ENABLE: '1' } })
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /\[rank 0\] nvls=1/)
})

test('--log-dir keeps a file a rank', async (t) => {
  const dir = scratchDir('logs-')
  const s = script('log.js', `console.log('line of rank ' + process.env.RANK)`)
  const r = await launch(['--nproc-per-node=2', '--log-dir', dir, s])
  t.is(r.status, 0, r.stderr)
  for (const rank of [0, 1]) t.regex(readFileSync(path.join(dir, `rank${rank}.log`), 'utf8'), new RegExp(`line of rank ${rank}`))
})

test('a failing rank stops the others; the launcher names its rank, exit code and output tail', async (t) => {
  const pids = scratchDir('pids-')
  const s = script('fail.js', `
    ${writeWhoAmI(pids)}
    if (process.env.RANK === '1') { console.log('about to fail'); setTimeout(() => process.exit(3), 300) }
    else setInterval(() => {}, 1000)`)
  const r = await launch(['--nproc-per-node', '3', s], { timeout: 60_000 })
  t.is(r.status, 1, r.stderr)
  t.regex(r.stderr, /rank 1 \(node 0, local rank 1\) failed: exit code 3/)
  t.regex(r.stderr, /\[rank 1\] about to fail/)
  t.regex(r.stderr, /stopping the other ranks/)
  for (const rank of ['0', '2']) t.false(alive(readFileSync(path.join(pids, rank), 'utf8')), `rank ${rank} was stopped`)
})

test('a rank killed by a signal is named with the signal; a rank that ignores SIGTERM is killed after --stop-timeout', async (t) => {
  const s = script('kill.js', `
    if (process.env.RANK === '0') setTimeout(() => process.kill(process.pid, 'SIGKILL'), 300)
    else { process.on('SIGTERM', () => console.log('ignoring SIGTERM')); setInterval(() => {}, 1000) }`)
  const r = await launch(['--nproc-per-node', '2', '--stop-timeout', '1', s], { timeout: 60_000 })
  t.is(r.status, 1, r.stderr)
  t.regex(r.stderr, /rank 0 \(node 0, local rank 0\) failed: killed by SIGKILL/)
  t.regex(r.stdout, /\[rank 1\] ignoring SIGTERM/)
})

test('--max-restarts restarts the whole group with RESTART_COUNT counting up', async (t) => {
  const s = script('flaky.js', `
    const n = Number(process.env.RESTART_COUNT)
    console.log('attempt ' + n)
    if (process.env.RANK === '1' && n < 2) process.exit(7)`)
  const ok = await launch(['--nproc-per-node', '2', '--max-restarts', '2', s])
  t.is(ok.status, 0, ok.stderr)
  t.regex(ok.stdout, /\[rank 0\] attempt 2/)
  t.is((ok.stderr.match(/restarting the group/g) ?? []).length, 2)
  const no = await launch(['--nproc-per-node', '2', '--max-restarts', '1', s])
  t.is(no.status, 1)
  t.regex(no.stderr, /failed 2 times \(--max-restarts 1\): giving up/)
})

test('Ctrl-C stops every rank', async (t) => {
  const pids = scratchDir('pids-')
  const s = script('sleep.js', `
    ${writeWhoAmI(pids)}
    setInterval(() => {}, 1000)`)
  const r = await launch(['--nproc-per-node', '2', s], {
    timeout: 60_000,
    during: (pid) => {
      const poll = setInterval(() => {
        if (existsSync(path.join(pids, '0')) && existsSync(path.join(pids, '1'))) {
          clearInterval(poll)
          // Both read as running before the interrupt: the check after it can tell.
          for (const rank of ['0', '1']) t.true(alive(readFileSync(path.join(pids, rank), 'utf8')), `rank ${rank} runs before Ctrl-C`)
          process.kill(pid, 'SIGINT')
        }
      }, 50)
    },
  })
  t.is(r.status, 130, r.stderr)
  t.regex(r.stderr, /SIGINT: stopping every rank/)
  for (const rank of ['0', '1']) t.false(alive(readFileSync(path.join(pids, rank), 'utf8')), `rank ${rank} was stopped`)
})

test('ranks share the launcher\'s store; a client without the token is refused and the launcher logs it', async (t) => {
  const s = script('store.js', `
    const { storeFromEnv } = require(${JSON.stringify(path.join(root, 'lib', 'distributed', 'launch-env.ts'))})
    const { TcpStore } = require(${JSON.stringify(path.join(root, 'lib', 'distributed', 'store.ts'))})
    ;(async () => {
      const store = await storeFromEnv({ timeout: 20000 })
      if (process.env.RANK === '0') {
        await store.set('greeting', 'from rank 0')
        await TcpStore.connect({ host: '127.0.0.1', port: Number(process.env.MASTER_PORT), token: 'not-the-token', timeout: 5000 }).catch((e) => console.log('intruder: ' + e.code))
      } else console.log('got ' + (await store.get('greeting')).toString())
      await store.barrier()
      store.close()
    })().catch((e) => { console.error(e); process.exit(1) })`)
  const r = await launch(['--nproc-per-node', '2', '--node-arg=--import=tsx', s])
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /\[rank 1\] got from rank 0/)
  t.regex(r.stdout, /\[rank 0\] intruder: STORE_UNAUTHORIZED/)
  t.regex(r.stderr, /cuda-node run: \[store\] refused a connection from 127\.0\.0\.1:\d+: its token is wrong/)
})

test('bad command lines exit 2 with the usage', async (t) => {
  const s = script('noop.js', '')
  for (const args of [['--bogus', s], ['--nproc-per-node', '0', s], ['--nnodes', '3:2', s], ['--rdzv-endpoint', 'nohost', s], []]) {
    const r = await launch(args)
    t.is(r.status, 2, `${args.join(' ')}: ${r.stderr}`)
    t.regex(r.stderr, /usage: cuda-node run/)
  }
  const multi = await launch(['--nnodes', '2', '--node-rank', '0', s], { env: { CUDA_NODE_STORE_TOKEN: '' } })
  t.is(multi.status, 2)
  t.regex(multi.stderr, /several nodes need the same store token/)
})

test('a node that waits for a missing node gives up after --rdzv-timeout', async (t) => {
  const s = script('noop.js', '')
  const r = await launch(['--nnodes', '2', '--node-rank', '0', '--rdzv-endpoint', `127.0.0.1:${await freePort()}`, '--rdzv-timeout', '1', '--token', 'tok', s], { timeout: 30_000 })
  t.is(r.status, 2, r.stderr)
  t.regex(r.stderr, /only 1 of the 2 nodes needed arrived within --rdzv-timeout 1 s/)
})

test('--nnodes MIN:MAX starts with the nodes that came once --rdzv-timeout has passed', async (t) => {
  const s = script('elastic.js', `console.log('world ' + process.env.WORLD_SIZE + ' nodes ' + process.env.GROUP_WORLD_SIZE + ' node ' + process.env.GROUP_RANK)`)
  const r = await launch(['--nnodes', '1:2', '--rdzv-endpoint', `127.0.0.1:${await freePort()}`, '--rdzv-timeout', '1', '--token', 'elastic', '--nproc-per-node', '2', s], { timeout: 60_000 })
  t.is(r.status, 0, r.stderr)
  t.regex(r.stdout, /\[rank 1\] world 2 nodes 1 node 0/)
})
