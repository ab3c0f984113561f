// Argument checks that must happen before the native layer sees a value: napi converts numbers
// loosely (1.5 to a u32 is 1), so kinds and integrality are checked here.
import { constants } from './native'
import { describe } from './describe'

export { describe }

const { maxCount } = constants

/** A number that is a whole number; TypeError for other kinds, RangeError for fractions or NaN. */
export function integer(name: string, value: unknown): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a number, got ${describe(value)}`)
  }
  if (!Number.isInteger(value)) {
    throw new RangeError(`${name} must be an integer, got ${value}`)
  }
  return value
}

/** A size, offset or count: a whole number in [0, the addon's `maxCount`]; TypeError for other kinds, RangeError otherwise. */
export function count(name: string, value: unknown): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`)
  if (!Number.isInteger(value) || value < 0 || value > maxCount) throw new RangeError(`${name} must be a non-negative integer, got ${value}`)
  return value
}

export function func(name: string, value: unknown): (...args: any[]) => any {
  if (typeof value !== 'function') {
    throw new TypeError(`${name} must be a function, got ${describe(value)}`)
  }
  return value as (...args: any[]) => any
}

/**
 * An options object of `what` (a constructor or function name): TypeError for another kind, and
 * for a key it does not take, naming the key and the ones it takes (a misspelt `nonblocking` would
 * otherwise be ignored). Keys whose value is `undefined` are checked too: a misspelling is one.
 */
export function options<T extends object>(what: string, value: unknown, keys: readonly (keyof T & string)[]): T {
  if (typeof value !== 'object' || value === null) throw new TypeError(`${what} takes an options object, got ${describe(value)}`)
  for (const key in value) {
    if (!(keys as readonly string[]).includes(key)) {
      throw new TypeError(`${what} takes no option '${key}'; it takes ${keys.map((k) => `'${k}'`).join(', ')}`)
    }
  }
  return value as T
}
