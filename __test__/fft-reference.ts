// The host references the cuFFT specs compare against: a seeded signal, the DFT, the relative error.

/** Interleaved complex numbers (re, im, re, im, …). */
export type Complex = Float64Array

/** `n` seeded values in [-0.5, 0.5) (`seededValues` in helpers.ts). */
export { seededValues as signal } from './helpers'

/** The unnormalised DFT of `count` complex rows of `n` points each (sign -1 forward, +1 inverse). */
export function dft(x: Complex, n: number, sign: number, count = 1): Complex {
  const out = new Float64Array(2 * n * count)
  for (let b = 0; b < count; b++) {
    for (let k = 0; k < n; k++) {
      let re = 0
      let im = 0
      for (let j = 0; j < n; j++) {
        const a = (sign * 2 * Math.PI * ((j * k) % n)) / n
        const [xr, xi] = [x[2 * (b * n + j)], x[2 * (b * n + j) + 1]]
        re += xr * Math.cos(a) - xi * Math.sin(a)
        im += xr * Math.sin(a) + xi * Math.cos(a)
      }
      out[2 * (b * n + k)] = re
      out[2 * (b * n + k) + 1] = im
    }
  }
  return out
}

/** The DFT of a row-major complex array of `shape` along every axis. */
export function dftNd(x: Complex, shape: number[], sign: number): Complex {
  let data = Float64Array.from(x)
  for (let axis = 0; axis < shape.length; axis++) {
    const n = shape[axis]
    const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1)
    const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1)
    const next = new Float64Array(data.length)
    for (let o = 0; o < outer; o++) {
      for (let i = 0; i < inner; i++) {
        const line = new Float64Array(2 * n)
        for (let j = 0; j < n; j++) {
          const at = (o * n + j) * inner + i
          line[2 * j] = data[2 * at]
          line[2 * j + 1] = data[2 * at + 1]
        }
        const t = dft(line, n, sign)
        for (let j = 0; j < n; j++) {
          const at = (o * n + j) * inner + i
          next[2 * at] = t[2 * j]
          next[2 * at + 1] = t[2 * j + 1]
        }
      }
    }
    data = next
  }
  return data
}

export function relError(got: ArrayLike<number>, want: ArrayLike<number>): number {
  let num = 0
  let den = 0
  for (let i = 0; i < want.length; i++) {
    num += (got[i] - want[i]) ** 2
    den += want[i] ** 2
  }
  return Math.sqrt(num / Math.max(den, 1e-300))
}
