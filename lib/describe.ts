// How an argument error names the value it got: by kind, and short. A leaf (no import), so that
// a module that must not load the addon (the store, which the launcher uses) names values as the
// rest of the library does (`validate.ts` re-exports it). A value is never converted to a string
// but a number's, a boolean's or a symbol's: a huge array's join hung the fuzzer, and a function's
// conversion would run its own toString.

/** The value as an argument error names it: `the string '…'`, `number 5`, `an object (Array)`, … */
export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'string') return `the string '${value.length > 40 ? value.slice(0, 40) + '…' : value}'`
  if (typeof value === 'bigint') return `the bigint ${value}n`
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'Object'})`
  if (typeof value === 'function') return 'a function'
  return `${typeof value} ${String(value)}`
}
