import test from 'ava'
import { spawnSync } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { StoreError, TcpStore, TcpStoreServer } from '..'
import { root } from './helpers'

const TOKEN = 'test-token-0123456789'

async function serve(t: any, options: Partial<Parameters<typeof TcpStoreServer.listen>[0]> = {}): Promise<{ server: TcpStoreServer; logs: string[] }> {
  const logs: string[] = []
  const server = await TcpStoreServer.listen({ token: TOKEN, log: (l) => logs.push(l), ...options })
  t.teardown(() => server.close())
  return { server, logs }
}

async function client(t: any, server: TcpStoreServer, options: Partial<Parameters<typeof TcpStore.connect>[0]> = {}): Promise<TcpStore> {
  const c = await TcpStore.connect({ port: server.port, token: TOKEN, timeout: 5000, ...options })
  t.teardown(() => c.close())
  return c
}

async function storeError(t: any, p: Promise<unknown>, code: string): Promise<StoreError> {
  const e = await t.throwsAsync(p, { instanceOf: StoreError })
  t.is(e.code, code, e.message)
  return e
}

test('set and get carry strings and bytes, and get waits for a key set later', async (t) => {
  const { server } = await serve(t)
  const [a, b] = [await client(t, server), await client(t, server)]
  await a.set('s', 'héllo')
  t.is((await b.get('s')).toString(), 'héllo')
  const bytes = Uint8Array.from([0, 255, 1, 128])
  await a.set('b', bytes)
  t.deepEqual([...(await b.get('b'))], [...bytes])
  const later = b.get('later')
  await new Promise((r) => setTimeout(r, 50))
  await a.set('later', 'now')
  t.is((await later).toString(), 'now')
})

test('add counts, compareSet follows PyTorch, delete and numKeys', async (t) => {
  const { server } = await serve(t)
  const a = await client(t, server)
  t.is(await a.add('n', 2), 2)
  t.is(await a.add('n', -5), -3)
  t.is((await a.compareSet('c', '', 'first')).toString(), 'first') // unset and expected empty: set
  t.is((await a.compareSet('c', 'wrong', 'second')).toString(), 'first') // no match: the value held
  t.is((await a.compareSet('c', 'first', 'third')).toString(), 'third')
  t.is(await a.numKeys(), 2)
  t.true(await a.delete('c'))
  t.false(await a.delete('c'))
  t.is(await a.numKeys(), 1)
  t.true(await a.check(['n']))
  t.false(await a.check(['n', 'c']))
})

test('wait resolves once every key is set, and times out with STORE_TIMEOUT', async (t) => {
  const { server } = await serve(t)
  const [a, b] = [await client(t, server), await client(t, server)]
  const both = a.wait(['x', 'y'], 2000)
  await b.set('x', '1')
  await b.set('y', '2')
  await both
  const t0 = Date.now()
  await storeError(t, a.wait(['never'], 200), 'STORE_TIMEOUT')
  t.true(Date.now() - t0 < 2000)
  await storeError(t, a.get('never', { timeout: 100 }), 'STORE_TIMEOUT')
  t.is((await a.get('x')).toString(), '1', 'the client still works after a timeout')
})

test('barrier lets the clients through together, generation after generation', async (t) => {
  const { server } = await serve(t)
  const cs = await Promise.all([0, 1, 2].map(() => client(t, server, { worldSize: 3 })))
  for (let round = 0; round < 2; round++) {
    const order: number[] = []
    await Promise.all(cs.map((c, i) => new Promise((r) => setTimeout(r, i * 30)).then(() => c.barrier()).then(() => order.push(i))))
    t.is(order.length, 3)
  }
  await storeError(t, cs[0].barrier({ size: 4, timeout: 200 }), 'STORE_TIMEOUT')
})

test('prefixes keep jobs apart', async (t) => {
  const { server } = await serve(t)
  const a = await client(t, server, { prefix: 'job1/' })
  const b = await client(t, server, { prefix: 'job2/' })
  await a.set('k', 'a')
  await b.set('k', 'b')
  t.is((await a.get('k')).toString(), 'a')
  t.is((await b.get('k')).toString(), 'b')
})

test('a client without the token is refused with STORE_UNAUTHORIZED and the server logs a line', async (t) => {
  const { server, logs } = await serve(t)
  await storeError(t, TcpStore.connect({ port: server.port, token: 'wrong', timeout: 2000 }), 'STORE_UNAUTHORIZED')
  t.true(logs.some((l) => /refused a connection .*token is wrong/.test(l)), logs.join('\n'))
  // A raw peer that skips the hello is refused too.
  const s = net.connect({ host: '127.0.0.1', port: server.port })
  const got = await new Promise<string>((resolve) => {
    let out = ''
    s.on('data', (d) => (out += d.toString('latin1')))
    s.on('close', () => resolve(out))
    s.on('error', () => resolve(out))
    s.write(Buffer.from([7, 0, 0, 0, 8, 1, 0, 0, 0, 0, 0]))
  })
  t.regex(got, /STORE_UNAUTHORIZED/)
  t.is((await (await client(t, server)).numKeys()), 0, 'the server still serves the job')
})

test('bad options are TypeError or RangeError before any connection', async (t) => {
  await t.throwsAsync(TcpStore.connect({ port: 0, token: TOKEN }), { instanceOf: RangeError })
  await t.throwsAsync(TcpStore.connect({ port: 70000, token: TOKEN }), { instanceOf: RangeError })
  await t.throwsAsync(TcpStore.connect({ port: 1234, token: '' }), { instanceOf: RangeError })
  await t.throwsAsync(TcpStore.connect({ port: 1234 } as any), { instanceOf: TypeError })
  await t.throwsAsync(TcpStore.connect({ port: 1234, token: TOKEN, timeout: -1 }), { instanceOf: RangeError })
  await t.throwsAsync(TcpStoreServer.listen({ token: undefined as any }), { instanceOf: TypeError })
  const { server } = await serve(t)
  const a = await client(t, server)
  await t.throwsAsync(a.set(42 as any, 'v'), { instanceOf: TypeError })
  await t.throwsAsync(a.set('k', 42 as any), { instanceOf: TypeError })
  await t.throwsAsync(a.wait([], 10), { instanceOf: TypeError })
  await t.throwsAsync(a.add('k', 1.5), { instanceOf: TypeError })
})

test('a port nobody listens on is STORE_CONNECT once the timeout has passed', async (t) => {
  const probe = net.createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()))
  const port = (probe.address() as net.AddressInfo).port
  await new Promise<void>((r) => probe.close(() => r()))
  const t0 = Date.now()
  await storeError(t, TcpStore.connect({ port, token: TOKEN, timeout: 300 }), 'STORE_CONNECT')
  t.true(Date.now() - t0 < 3000)
})

test('a store that never answers is STORE_TIMEOUT, not a hang', async (t) => {
  const silent = net.createServer((s) => s.on('error', () => {}))
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()))
  t.teardown(() => silent.close())
  const port = (silent.address() as net.AddressInfo).port
  const t0 = Date.now()
  await storeError(t, TcpStore.connect({ port, token: TOKEN, timeout: 300 }), 'STORE_TIMEOUT')
  t.true(Date.now() - t0 < 3000)
})

test('a server that vanishes fails pending and later calls with STORE_CLOSED', async (t) => {
  const server = await TcpStoreServer.listen({ token: TOKEN, log: () => {} })
  const a = await TcpStore.connect({ port: server.port, token: TOKEN, timeout: 5000 })
  const pending = a.get('never')
  await server.close()
  await storeError(t, pending, 'STORE_CLOSED')
  await storeError(t, a.set('k', 'v'), 'STORE_CLOSED')
})

test('a client that vanishes while waiting leaves the server serving the others', async (t) => {
  const { server } = await serve(t)
  const a = await TcpStore.connect({ port: server.port, token: TOKEN, timeout: 5000 })
  const waiting = a.get('k').catch((e) => e)
  a.close()
  t.is(((await waiting) as StoreError).code, 'STORE_CLOSED')
  const b = await client(t, server)
  await b.set('k', 'v')
  t.is((await b.get('k')).toString(), 'v')
})

test('malformed frames are dropped with a log line; the server keeps serving', async (t) => {
  const { server, logs } = await serve(t)
  const raw = async (bytes: Buffer, hello = true): Promise<string> => {
    const s = net.connect({ host: '127.0.0.1', port: server.port })
    return new Promise<string>((resolve) => {
      let out = ''
      const timer = setTimeout(() => {
        s.destroy()
        resolve(out + '(timeout)')
      }, 3000)
      s.on('data', (d) => (out += d.toString('latin1')))
      s.on('close', () => {
        clearTimeout(timer)
        resolve(out)
      })
      s.on('error', () => {})
      if (hello) {
        const tok = Buffer.from(TOKEN)
        const h = Buffer.alloc(4 + 7 + 4 + tok.length)
        h.writeUInt32LE(7 + 4 + tok.length, 0)
        h.writeUInt8(1, 4)
        h.writeUInt32LE(1, 5)
        h.writeUInt16LE(1, 9)
        h.writeUInt32LE(tok.length, 11)
        tok.copy(h, 15)
        s.write(h)
      }
      s.write(bytes)
    })
  }
  // A part longer than its frame, a frame over the limit, an unknown operation, a wrong count.
  t.regex(await raw(Buffer.from([11, 0, 0, 0, 2, 5, 0, 0, 0, 1, 0, 0xff, 0xff, 0, 0])), /STORE_PROTOCOL/)
  t.regex(await raw(Buffer.from([0xff, 0xff, 0xff, 0x7f, 2])), /STORE_PROTOCOL/)
  t.regex(await raw(Buffer.from([7, 0, 0, 0, 99, 5, 0, 0, 0, 0, 0])), /STORE_PROTOCOL/)
  t.regex(await raw(Buffer.from([7, 0, 0, 0, 2, 5, 0, 0, 0, 0, 0])), /STORE_PROTOCOL/)
  // Before the hello, even a few KiB is refused unread.
  t.regex(await raw(Buffer.from([0, 0, 1, 0]), false), /STORE_PROTOCOL/)
  t.true(logs.filter((l) => /dropped/.test(l)).length >= 5, logs.join('\n'))
  const c = await client(t, server)
  await c.set('still', 'here')
  t.is((await c.get('still')).toString(), 'here')
})

test('a server that sends garbage is STORE_PROTOCOL for the client', async (t) => {
  const evil = net.createServer((s) => {
    s.on('error', () => {})
    s.once('data', () => s.write(Buffer.from([3, 0, 0, 0, 1, 2, 3])))
  })
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', () => r()))
  t.teardown(() => evil.close())
  await storeError(t, TcpStore.connect({ port: (evil.address() as net.AddressInfo).port, token: TOKEN, timeout: 2000 }), 'STORE_PROTOCOL')
})

test('one client may store only up to the bound', async (t) => {
  const { server } = await serve(t, { maxClientBytes: 1024 })
  const a = await client(t, server)
  await a.set('k', Buffer.alloc(900))
  await storeError(t, a.set('k2', Buffer.alloc(200)), 'STORE_QUOTA')
  await a.set('k', Buffer.alloc(1000)) // replacing its own key counts once
  await a.delete('k')
  await a.set('k2', Buffer.alloc(1000))
  const b = await client(t, server)
  await b.set('k3', Buffer.alloc(1000)) // each client has its own bound
  t.is(await b.numKeys(), 2)
})

test('the server listens on loopback by default', async (t) => {
  const { server } = await serve(t)
  t.is(server.host, '127.0.0.1')
})

test('a StoreError takes its message as a string only: converting anything else would run its code (fuzz seed 20023 hung on a huge array)', (t) => {
  const huge = new Proxy([], { get: (o, k) => (k === 'length' ? 2 ** 32 - 1 : Reflect.get(o, k)) })
  t.throws(() => new StoreError('STORE_CLOSED', huge as never), { instanceOf: TypeError, message: /message must be a string/ })
  t.is(new StoreError('STORE_CLOSED', 'closed').message, 'closed')
})

test('a bad argument is named as the rest of the library names it (validate.ts), running none of its code, and the store loads no addon', (t) => {
  let ran = false
  const f = Object.assign(() => {}, {
    toString: () => {
      ran = true
      return 'x'
    },
  })
  t.throws(() => new StoreError('STORE_CLOSED', f as never), { instanceOf: TypeError, message: /got a function$/ })
  t.false(ran)
  t.throws(() => new StoreError('STORE_CLOSED', 5 as never), { instanceOf: TypeError, message: /got number 5$/ })
  // The launcher (cli/run.ts) uses the store: it must not load the addon.
  const script = `require(${JSON.stringify(path.join(root, 'lib', 'distributed', 'store.js'))}); console.log(JSON.stringify(Object.keys(require.cache)))`
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  t.is(r.status, 0, r.stderr)
  const loaded: string[] = JSON.parse(r.stdout)
  t.true(loaded.some((f) => f.endsWith('describe.js')))
  t.false(loaded.some((f) => /native|\.node$/.test(path.basename(f))), loaded.join(', '))
})
