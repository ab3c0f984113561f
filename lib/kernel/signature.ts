// A kernel's parameters, read from the `extern "C" __global__` signature in its source, so that
// arguments are checked before a launch even where the driver cannot tell (the simulator).

export interface Param {
  pointer: boolean
  /** Bytes, where the type is a known scalar; undefined otherwise. */
  size?: number
  /**
   * Whether the scalar is a floating-point type (`float`, `double`: true) or an integer (false);
   * undefined where it cannot be told (half types, whose bits an integer Scalar may carry).
   */
  float?: boolean
  text: string
}

const SCALAR_BYTES: [RegExp, number][] = [
  [/\b(double|int64_t|uint64_t|long\s+long|size_t|ptrdiff_t)\b/, 8],
  [/\b(float|int|unsigned|int32_t|uint32_t)\b/, 4],
  [/\b(short|int16_t|uint16_t|half|__half|__nv_bfloat16)\b/, 2],
  [/\b(char|int8_t|uint8_t|bool)\b/, 1],
]

/** The parameters of `extern "C" __global__ void name(...)` in `code`, if it can be found. */
export function parseSignature(code: string, name: string): Param[] | undefined {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  let re: RegExp
  try {
    re = new RegExp(`__global__\\s+(?:__launch_bounds__\\s*\\([^)]*\\)\\s*)?void\\s+${esc}\\s*\\(([^)]*)\\)`)
  } catch {
    return undefined // a name past what a regular expression can hold: no signature to read
  }
  const m = re.exec(code)
  if (!m) return undefined
  const list = m[1].replace(/\/\*[\s\S]*?\*\//g, '').trim()
  if (list === '' || list === 'void') return []
  return list.split(',').map((raw) => {
    const text = raw.trim()
    if (text.includes('*') || text.includes('[')) return { pointer: true, size: 8, text }
    const hit = SCALAR_BYTES.find(([re]) => re.test(text))
    return { pointer: false, size: hit?.[1], float: kindOf(text), text }
  })
}

/** Whether a scalar parameter's type is `float`/`double` (true), an integer (false), or neither told. */
function kindOf(text: string): boolean | undefined {
  if (/\b(half|__half|__nv_bfloat16)\b/.test(text)) return undefined
  if (/\b(float|double)\b/.test(text)) return true
  if (/\b(int|unsigned|signed|short|long|char|bool|size_t|ptrdiff_t|u?int(8|16|32|64)_t)\b/.test(text)) return false
  return undefined
}
