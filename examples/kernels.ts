// A kernel from CUDA C: compiled with NVRTC on the GPU; on the simulator its host version runs.
import { alloc, f32, i32, MemoryPointer, RawKernel } from '..'

const saxpy = new RawKernel(
  `extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
     int i = blockIdx.x * blockDim.x + threadIdx.x;
     if (i < n) y[i] = a * x[i] + y[i];
   }`,
  'saxpy',
  {
    // What the simulator runs instead (no compiler there).
    simulate([a, x, y, n]) {
      const count = (n as { value: number }).value
      const hx = new Float32Array(count)
      const hy = new Float32Array(count)
      ;(x as MemoryPointer).copyToHost(hx)
      ;(y as MemoryPointer).copyToHost(hy)
      for (let i = 0; i < count; i++) hy[i] = Math.fround((a as { value: number }).value * hx[i] + hy[i])
      ;(y as MemoryPointer).copyFromHost(hy)
    },
  },
)

const n = 1 << 16
const x = alloc(4 * n)
const y = alloc(4 * n)
x.copyFromHost(new Float32Array(n).fill(2))
y.copyFromHost(new Float32Array(n).fill(1))
saxpy.launch(Math.ceil(n / 256), 256, [f32(3), x, y, i32(n)])
const out = new Float32Array(n)
y.copyToHost(out)
console.log(`saxpy: 3 * 2 + 1 = ${out[0]} (all ${n}: ${out.every((v) => v === 7)})`)
