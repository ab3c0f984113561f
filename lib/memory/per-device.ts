import { scope } from '../context'

/** One value per device, made on first use for that device. */
export class PerDevice<T> {
  readonly #made = new Map<number, T>()
  readonly #make: (device: number) => T

  constructor(make: (device: number) => T) {
    this.#make = make
  }

  get(device = scope().device): T {
    let v = this.#made.get(device)
    if (v === undefined) {
      v = this.#make(device)
      this.#made.set(device, v)
    }
    return v
  }

  all(): IterableIterator<T> {
    return this.#made.values()
  }

  /** `[device, value]` for each device made so far. */
  entries(): IterableIterator<[number, T]> {
    return this.#made.entries()
  }
}
