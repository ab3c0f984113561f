// Loads the addon: the file named by NAPI_RS_NATIVE_LIBRARY_PATH (the bench's own build, or the
// release job's), else the addon beside this file (a local build from `npm run build`, or the one
// a tarball from `npm pack` carries), else the prebuilt package for this platform
// (@cuda-node/<platform>, an optional dependency of the published package). Where none of these
// loads, or NAPI_RS_FORCE_WASI is set, the WebAssembly build (the `sim` backend): the package
// @cuda-node/wasm32-wasi, or a local build of it (npm run build:wasm). Where nothing loads, the
// error says what a user can do: which platforms have a prebuilt addon, the WebAssembly package
// that loads instead, and how to build from a clone. Written by hand and kept in
// the repository: napi-rs writes no loader for an addon without #[napi] items.
'use strict'
const { existsSync } = require('node:fs')
const path = require('node:path')

/** Our prebuilt packages' platform suffixes (package.json `napi.targets`), by Node's platform-arch. */
const PREBUILT = { 'linux-x64': 'linux-x64-gnu', 'linux-arm64': 'linux-arm64-gnu', 'darwin-arm64': 'darwin-arm64', 'win32-x64': 'win32-x64-msvc' }

/** What a user can do where no addon loads here. */
const REMEDY =
  `Prebuilt addons exist for ${Object.values(PREBUILT).join(', ')} (packages @cuda-node/<platform>, optional dependencies of cuda-node: ` +
  'reinstall without --omit=optional or --no-optional). Elsewhere the WebAssembly build loads instead, with the simulator only: ' +
  '`npm install @cuda-node/wasm32-wasi`. Or build the addon from source (Rust >= 1.88 and a C compiler): in a clone of ' +
  'https://github.com/cuda-node/cuda-node, `npm install` builds it, and `npm pack` there writes a tarball to install in your project.'

/** The platform suffix of our prebuilt packages (package.json `napi.targets`), or undefined. */
function platformSuffix() {
  const key = `${process.platform}-${process.arch}`
  const suffix = PREBUILT[key]
  if (suffix !== undefined && process.platform === 'linux') {
    // Our Linux builds link glibc; on musl (Alpine) they cannot load.
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime
    if (glibc === undefined) return undefined
  }
  return suffix
}

/** The WebAssembly build: its package, else a local build in npm/wasm32-wasi. */
function loadWasi(nativeError) {
  const local = path.join(__dirname, 'npm', 'wasm32-wasi')
  try {
    if (existsSync(path.join(local, 'cuda-node.wasm32-wasi.wasm'))) return require(path.join(local, 'cuda-node.wasi.cjs'))
    return require('@cuda-node/wasm32-wasi')
  } catch (cause) {
    if (nativeError) {
      nativeError.message += `; nor could its WebAssembly build load (${cause.message.split('\n')[0]}). ${REMEDY}`
      throw nativeError
    }
    throw new Error('NAPI_RS_FORCE_WASI is set, but cuda-node could not load its WebAssembly build: `npm install @cuda-node/wasm32-wasi` (in a clone: `npm run build:wasm`)', { cause })
  }
}

function forcedWasi() {
  const v = process.env.NAPI_RS_FORCE_WASI
  return v !== undefined && v !== '' && v !== '0' && v !== 'false'
}

function load() {
  if (forcedWasi()) return loadWasi()
  try {
    return loadNative()
  } catch (e) {
    return loadWasi(e)
  }
}

function loadNative() {
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  if (override) return require(path.resolve(override))
  const suffix = platformSuffix()
  if (suffix === undefined) {
    throw new Error(`cuda-node has no prebuilt addon for ${process.platform}-${process.arch}${process.platform === 'linux' ? ' (with glibc)' : ''}`)
  }
  const local = path.join(__dirname, `cuda-node.${suffix}.node`)
  if (existsSync(local)) return require(local)
  try {
    return require(`@cuda-node/${suffix}`)
  } catch (cause) {
    throw new Error(`cuda-node could not load its addon for ${suffix}: the package @cuda-node/${suffix} is not installed`, { cause })
  }
}

module.exports = load()
