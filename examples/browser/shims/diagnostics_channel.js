// node:diagnostics_channel in the page: named channels with subscribers, enough for the memory
// events (lib/memory/channels.ts), which publish only where something subscribed.
const channels = new Map()
class Channel {
  constructor(name) {
    this.name = name
    this.subscribers = []
  }
  get hasSubscribers() { return this.subscribers.length > 0 }
  subscribe(fn) { this.subscribers.push(fn) }
  unsubscribe(fn) {
    const i = this.subscribers.indexOf(fn)
    if (i >= 0) this.subscribers.splice(i, 1)
    return i >= 0
  }
  publish(message) { for (const fn of this.subscribers.slice()) fn(message, this.name) }
}
export function channel(name) {
  if (!channels.has(name)) channels.set(name, new Channel(name))
  return channels.get(name)
}
export function hasSubscribers(name) { return channels.has(name) && channels.get(name).hasSubscribers }
export function subscribe(name, fn) { channel(name).subscribe(fn) }
export function unsubscribe(name, fn) { return channel(name).unsubscribe(fn) }
export { Channel }
export default { channel, hasSubscribers, subscribe, unsubscribe, Channel }
