// Serves examples/browser/ (after `node examples/browser/build.mjs`) for a browser to open:
//   node examples/browser/serve.mjs [port]      then open the address it prints
// Any static server does as well, where it sends .wasm as application/wasm.
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
if (!existsSync(path.join(here, 'dist', 'tour.js'))) throw new Error('examples/browser/dist is missing: run `npm run build:wasm && node examples/browser/build.mjs` first')
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.png': 'image/png' }
const server = createServer((req, res) => {
  const file = path.join(here, decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/\/$/, '/index.html'))
  if (!file.startsWith(here) || !existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end()
  res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' })
  createReadStream(file).pipe(res)
})
server.listen(Number(process.argv[2] ?? 8000), '127.0.0.1', () => console.log(`cuda-node's browser tour: open http://127.0.0.1:${server.address().port}/`))
