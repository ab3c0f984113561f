// The page's program: the CLI's tour, unchanged, on the WebAssembly build (loaded by index.html
// before this runs), with its console shown on the page and its timeline drawn from the SVG the
// tour writes (kept in memory by the fs shim).
import { tour } from '../../cli/tour'

const files = (globalThis as unknown as { __cudaNodeFiles: Map<string, string> }).__cudaNodeFiles
const log = document.getElementById('log') as HTMLElement
for (const level of ['log', 'error'] as const) {
  const original = console[level].bind(console)
  console[level] = (...args: unknown[]) => {
    original(...args)
    log.textContent += args.map(String).join(' ') + '\n'
  }
}

tour('/out').then(
  () => {
    const svg = files.get('/out/tour-trace.svg')
    if (svg) (document.getElementById('timeline') as HTMLElement).innerHTML = svg
    console.log(svg ? 'cuda-node tour: done, timeline drawn' : 'cuda-node tour: done, but no timeline was written')
  },
  (e) => console.error('cuda-node tour failed:', e instanceof Error ? e.stack : e),
)
