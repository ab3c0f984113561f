// Loads cuda-node's WebAssembly build (wasm32-wasip1, the `sim` backend only) in Node.js,
// through emnapi: Node-API implemented in JS over the module's memory. Single-threaded: async
// work and threadsafe functions are emnapi's JS plugins, and the simulator runs cooperatively.
'use strict'
const { readFileSync } = require('node:fs')
const path = require('node:path')
const { WASI } = requireQuietly('node:wasi')
const { instantiateNapiModuleSync, emnapiAsyncWorkPlugin, emnapiTSFNPlugin } = require('@napi-rs/wasm-runtime')
const { createContext } = require('@emnapi/runtime')

/**
 * `require(id)` without Node 20's "ExperimentalWarning: WASI is an experimental feature" in the
 * user's output (emitted when node:wasi loads): the warning is ours to take, not the user's to read.
 */
function requireQuietly(id) {
  const emit = process.emitWarning
  process.emitWarning = function (warning, ...rest) {
    const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type
    if (type === 'ExperimentalWarning' && /WASI/.test(String(warning))) return
    return emit.call(this, warning, ...rest)
  }
  try {
    return require(id)
  } finally {
    process.emitWarning = emit
  }
}

const file = process.env.CUDA_NODE_WASM_PATH || path.join(__dirname, 'cuda-node.wasm32-wasi.wasm')
const wasi = new WASI({ version: 'preview1', env: process.env })
// Not shared: the build has no threads. 32 MiB to start (the 8 MiB stack included), 4 GiB at most.
const memory = new WebAssembly.Memory({ initial: 512, maximum: 65536 })

const context = createContext()

/**
 * The Node-API calls every export makes (its arguments, its value back). emnapi's versions each
 * make a DataView of the memory and a closure, twice with the clearing of the last error: ~350
 * bytes of JS heap a call, ~3 kB a pool alloc+free. These write through one view of `memory`,
 * made again only when it grows (which detaches its buffer). Anything but a valid call of the
 * expected type goes to emnapi's own function (its checks, its errors). A success here leaves the
 * env's last error as it was: nothing reads it (the module imports no napi_get_last_error_info;
 * __test__/wasm.spec.ts holds it to that). The browser loader keeps emnapi's.
 */
function fastCalls(napi) {
  let view = new DataView(memory.buffer)
  const heap = () => (view.buffer === memory.buffer ? view : (view = new DataView(memory.buffer)))
  const slow = { ...napi }
  // The handles emnapi gives undefined, false and true, and writes past the arguments a call was
  // given: its own constants, read from what its functions write the first time (never assumed,
  // so another emnapi version's numbering is followed).
  const learned = { undefined: undefined, bool: [undefined, undefined], missing: undefined }
  const learn = (call, at, keep) => {
    const status = call()
    if (status === 0 && at) keep(heap().getUint32(at >>> 0, true))
    return status
  }
  return {
    napi_get_value_double(env, value, result) {
      if (env && value && result) {
        const v = context.jsValueFromNapiValue(value)
        if (typeof v === 'number') {
          heap().setFloat64(result >>> 0, v, true)
          return 0
        }
      }
      return slow.napi_get_value_double(env, value, result)
    },
    napi_get_value_bool(env, value, result) {
      if (env && value && result) {
        const v = context.jsValueFromNapiValue(value)
        if (typeof v === 'boolean') {
          heap().setInt8(result >>> 0, v ? 1 : 0)
          return 0
        }
      }
      return slow.napi_get_value_bool(env, value, result)
    },
    napi_create_double(env, value, result) {
      if (!env || !result) return slow.napi_create_double(env, value, result)
      heap().setUint32(result >>> 0, context.napiValueFromJsValue(value), true)
      return 0
    },
    napi_get_boolean(env, value, result) {
      const i = value === 0 ? 0 : 1
      if (!env || !result || learned.bool[i] === undefined) return learn(() => slow.napi_get_boolean(env, value, result), result, (h) => (learned.bool[i] = h))
      heap().setUint32(result >>> 0, learned.bool[i], true)
      return 0
    },
    napi_get_undefined(env, result) {
      if (!env || !result || learned.undefined === undefined) return learn(() => slow.napi_get_undefined(env, result), result, (h) => (learned.undefined = h))
      heap().setUint32(result >>> 0, learned.undefined, true)
      return 0
    },
    napi_get_cb_info(env, cbinfo, argc, argv, thisArg, data) {
      if (!env || !cbinfo || (argv && !argc)) return slow.napi_get_cb_info(env, cbinfo, argc, argv, thisArg, data)
      const info = context.getCallbackInfo(cbinfo)
      const h = heap()
      ;[argc, argv, thisArg, data] = [argc >>> 0, argv >>> 0, thisArg >>> 0, data >>> 0]
      if (argv) {
        const want = h.getUint32(argc, true)
        const n = Math.min(want, info.args.length)
        // Past the arguments given, emnapi writes a handle of its own: learned from its first such call.
        if (want > n && learned.missing === undefined) return learn(() => slow.napi_get_cb_info(env, cbinfo, argc, argv, thisArg, data), argv + n * 4, (v) => (learned.missing = v))
        for (let i = 0; i < n; i++) h.setUint32(argv + i * 4, context.napiValueFromJsValue(info.args[i]), true)
        for (let i = n; i < want; i++) h.setUint32(argv + i * 4, learned.missing, true)
      }
      if (argc) h.setUint32(argc, info.args.length, true)
      if (thisArg) h.setUint32(thisArg, context.napiValueFromJsValue(info.thiz), true)
      if (data) h.setUint32(data, info.data, true)
      return 0
    },
  }
}

const { napiModule } = instantiateNapiModuleSync(readFileSync(file), {
  context,
  asyncWorkPoolSize: 0,
  wasi,
  plugins: [emnapiAsyncWorkPlugin, emnapiTSFNPlugin],
  overwriteImports(importObject) {
    importObject.env = { ...importObject.env, ...importObject.napi, ...fastCalls(importObject.napi), ...importObject.emnapi, memory }
    return importObject
  },
  beforeInit({ instance }) {
    for (const name of Object.keys(instance.exports)) {
      if (name.startsWith('__napi_register__')) instance.exports[name]()
    }
  },
})

module.exports = napiModule.exports
