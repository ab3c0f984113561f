// CFunctionAllocator (CuPy's): an allocator made of native malloc/free functions given by address.
// The functions come from a tiny Node-API addon in C built here with `cc` (skipped, saying why,
// where there is no C compiler or no Node headers): a bump allocator over a device buffer whose
// address is its `param`, so its pointers are memory the simulator and the driver both know.
import test from 'ava'
import { spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { CFunctionAllocator, CudaError, mallocPlain, MemoryPool, setAllocator, alloc, getCurrentStream } from '..'
import { onWasm, runJson, scratchDir } from './helpers'

const ARENA_C = String.raw`
#include <node_api.h>
#include <stdint.h>
#include <stddef.h>

/* A bump allocator over [param, param + capacity): 512-byte units; freeing the last block gives
   its bytes back. Counts its calls and the device it was last asked for. */
static uint64_t capacity = 1 << 20, top = 0;
static int64_t mallocs = 0, frees = 0, last_device = -1;

void* arena_malloc(void* param, size_t size, int device) {
  mallocs++;
  last_device = device;
  size_t rounded = (size + 511) & ~(size_t)511;
  if (rounded > capacity - top) return NULL;
  void* p = (char*)param + top;
  top += rounded;
  return p;
}

void arena_free(void* param, void* ptr, int device) {
  frees++;
  uint64_t at = (uint64_t)((char*)ptr - (char*)param);
  if (at < top) top = at;
}

static napi_value stats(napi_env env, napi_callback_info info) {
  napi_value o, v;
  napi_create_object(env, &o);
  napi_create_int64(env, mallocs, &v); napi_set_named_property(env, o, "mallocs", v);
  napi_create_int64(env, frees, &v); napi_set_named_property(env, o, "frees", v);
  napi_create_int64(env, (int64_t)top, &v); napi_set_named_property(env, o, "top", v);
  napi_create_int64(env, last_device, &v); napi_set_named_property(env, o, "lastDevice", v);
  return o;
}

static napi_value set_capacity(napi_env env, napi_callback_info info) {
  size_t argc = 1; napi_value arg; int64_t n;
  napi_get_cb_info(env, info, &argc, &arg, NULL, NULL);
  napi_get_value_int64(env, arg, &n);
  capacity = (uint64_t)n;
  top = 0;
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value v;
  napi_create_bigint_uint64(env, (uint64_t)(uintptr_t)&arena_malloc, &v); napi_set_named_property(env, exports, "malloc", v);
  napi_create_bigint_uint64(env, (uint64_t)(uintptr_t)&arena_free, &v); napi_set_named_property(env, exports, "free", v);
  napi_create_function(env, "stats", NAPI_AUTO_LENGTH, stats, NULL, &v); napi_set_named_property(env, exports, "stats", v);
  napi_create_function(env, "setCapacity", NAPI_AUTO_LENGTH, set_capacity, NULL, &v); napi_set_named_property(env, exports, "setCapacity", v);
  return exports;
}
`

interface Arena {
  malloc: bigint
  free: bigint
  stats(): { mallocs: number; frees: number; top: number; lastDevice: number }
  setCapacity(n: number): void
}

/** The C addon, built once; or why it cannot be. */
function build(): Arena | string {
  if (onWasm) return 'the WebAssembly build cannot call native functions'
  if (process.platform === 'win32') return 'the test builds its C addon with cc, not MSVC'
  const include = path.join(path.dirname(process.execPath), '..', 'include', 'node')
  if (!existsSync(path.join(include, 'node_api.h'))) return `no Node headers at ${include}`
  const dir = scratchDir('c-allocator-')
  const src = path.join(dir, 'arena.c')
  const out = path.join(dir, 'arena.node')
  writeFileSync(src, ARENA_C)
  const flags = process.platform === 'darwin' ? ['-undefined', 'dynamic_lookup'] : []
  const r = spawnSync('cc', ['-shared', '-fPIC', '-O1', `-I${include}`, ...flags, '-o', out, src], { encoding: 'utf8' })
  if (r.error) return `no C compiler (cc): ${r.error.message}`
  if (r.status !== 0) return `cc failed: ${r.stderr}`
  arenaPath = out
  return require(out) as Arena
}

/** Where the built addon is, for a child process. */
let arenaPath = ''

const arena = build()
// Serial: the arena is one per process.
const cSerial: typeof test.serial = typeof arena === 'string' ? (((title: string, ...rest: any[]) => (test.serial.skip as any)(`${title} (${arena})`, ...rest)) as any) : test.serial
const A = arena as Arena

cSerial('the C functions are called with param, size and device, and free once the memory is let go', (t) => {
  const base = mallocPlain(1 << 20)
  A.setCapacity(1 << 20)
  const a = new CFunctionAllocator(A.malloc, A.free, base.ptr, base)
  const before = A.stats()
  const p = a.malloc(1000)
  t.is(p.ptr, base.ptr, 'the first block is at param')
  t.is(p.size, 1000)
  t.is(A.stats().mallocs, before.mallocs + 1)
  t.is(A.stats().lastDevice, 0)
  const q = a.malloc(100)
  t.is(q.ptr, base.ptr + 1024n)
  q.copyFromHost(new Uint8Array(100).fill(7))
  const back = new Uint8Array(100)
  q.copyToHost(back)
  t.true(back.every((b) => b === 7))
  q.free()
  t.is(A.stats().frees, before.frees + 1, 'free ran when the memory was freed')
  t.is(A.stats().top, 1024)
  p.free()
  t.is(A.stats().top, 0)
  t.is(a.malloc(0).size, 0)
  t.is(A.stats().mallocs, before.mallocs + 2, 'zero bytes call nothing')
})

cSerial('a malloc that returns null is CUDA_ERROR_OUT_OF_MEMORY', (t) => {
  const base = mallocPlain(4096)
  A.setCapacity(4096)
  const a = new CFunctionAllocator(A.malloc, A.free, base.ptr, base)
  const p = a.malloc(4096)
  const e = t.throws(() => a.malloc(1), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_OUT_OF_MEMORY')
  t.regex(e!.message, /returned null/)
  p.free()
  A.setCapacity(1 << 20)
})

cSerial('memory the driver does not know is refused and given back at once', (t) => {
  A.setCapacity(1 << 20)
  const frees = A.stats().frees
  // param 0x1000: the arena hands out 0x1000, which is no device memory.
  const a = new CFunctionAllocator(A.malloc, A.free, 0x1000n)
  const e = t.throws(() => a.malloc(16), { instanceOf: CudaError })
  t.is(e!.code, 'CUDA_ERROR_INVALID_VALUE')
  t.is(A.stats().frees, frees + 1)
})

cSerial('its malloc is an allocator: setAllocator and a MemoryPool take it', (t) => {
  const base = mallocPlain(1 << 20)
  A.setCapacity(1 << 20)
  const a = new CFunctionAllocator(A.malloc, A.free, base.ptr, base)
  const pool = new MemoryPool(a.malloc)
  const p = pool.malloc(2048)
  t.true(p.ptr >= base.ptr && p.ptr < base.ptr + BigInt(1 << 20))
  p.free()
  pool.freeAllBlocks()
  setAllocator(a.malloc)
  try {
    const q = alloc(512)
    t.is(q.ptr, base.ptr)
    q.free()
  } finally {
    setAllocator(undefined)
  }
  getCurrentStream().synchronize()
  t.is(A.stats().top, 0)
})

cSerial('the owner is kept alive while memory from the allocator lives, and let go after its free', (t) => {
  const r = runJson(
    `const arena = require(${JSON.stringify(arenaPath)})
     const base = cuda.mallocPlain(1 << 16)
     arena.setCapacity(1 << 16)
     let p
     const owner = (() => {
       const o = { name: 'the addon' }
       p = new cuda.CFunctionAllocator(arena.malloc, arena.free, base.ptr, o).malloc(256)
       return new WeakRef(o)
     })()
     // A WeakRef holds its target to the end of the job that made it: look in later ones.
     setTimeout(() => {
       for (let i = 0; i < 3; i++) globalThis.gc()
       const kept = owner.deref() !== undefined
       p.free()
       const freed = arena.stats().frees
       setTimeout(() => {
         for (let i = 0; i < 3; i++) globalThis.gc()
         cuda.mallocPlain(16).free() // a call on this thread lets go of references dropped elsewhere
         setTimeout(() => {
           for (let i = 0; i < 3; i++) globalThis.gc()
           console.log(JSON.stringify({ kept, freed, released: owner.deref() === undefined }))
         }, 50)
       }, 50)
     }, 50)`,
    {},
    ['--expose-gc'],
  )
  t.true(r.kept, 'alive while the memory is')
  t.is(r.freed, 1)
  t.true(r.released, 'collected once the memory was freed')
})

test('addresses that are not functions of this process are refused before any call', (t) => {
  if (onWasm) {
    const e = t.throws(() => new CFunctionAllocator(0x1000n, 0x1000n), { instanceOf: CudaError })
    t.is(e!.code, 'CUDA_ERROR_NOT_SUPPORTED')
    return
  }
  t.throws(() => new CFunctionAllocator(0n, 0n), { instanceOf: RangeError, message: /malloc 0x0/ })
  const heap = mallocPlain(16).ptr // a device address: no code there
  t.throws(() => new CFunctionAllocator(heap, heap), { instanceOf: RangeError })
  t.throws(() => new CFunctionAllocator(5 as never, 5n), { instanceOf: TypeError })
  t.throws(() => new CFunctionAllocator(-1n, 5n), { instanceOf: RangeError })
  if (typeof arena !== 'string') {
    t.throws(() => new CFunctionAllocator(A.malloc, A.free, 0n, 5 as never), { instanceOf: TypeError })
    t.throws(() => new CFunctionAllocator(A.malloc, A.free).malloc(-1), { instanceOf: RangeError })
  }
})
