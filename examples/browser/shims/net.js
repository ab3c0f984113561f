// node:net in the page: a browser opens no TCP sockets, so the distributed store (TcpStore,
// cuda-node run's rendezvous) is not there; anything that reaches for it gets a clear error.
function refused() {
  throw new Error('no TCP sockets in the browser build: TcpStore and the launcher need Node')
}
export const createServer = refused
export const connect = refused
export const createConnection = refused
export const isIP = () => 0
export default { createServer, connect, createConnection, isIP }
