/**
 * cuda-node: CUDA's runtime layer for Node.js, after CuPy's `cupy.cuda`.
 * @packageDocumentation
 */
export { backend, type BackendInfo } from './lib/backend'
export { CudaError } from './lib/errors'
export { Device, type MemInfo } from './lib/device'
