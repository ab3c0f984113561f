// docs/cupy-inventory.md, held to the package: every ✓ and "part" row names something the
// package exports (a false ✓ fails), and every pending row whose name has since appeared is
// reported, so the lead flips it to ✓.
import test from 'ava'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import * as cuda from '..'
import { root } from './helpers'

interface Row {
  line: number
  cupy: string
  ours: string
  status: string
}

const STATUSES = ['✓', 'part', '✗', 'by-design', 'pending']

function rows(): Row[] {
  const lines = readFileSync(path.join(root, 'docs/cupy-inventory.md'), 'utf8').split('\n')
  const out: Row[] = []
  lines.forEach((l, i) => {
    if (!l.startsWith('| ') || l.startsWith('| CuPy |') || l.startsWith('| ---')) return
    // Cells split on ' | ' (a `\|` inside code is never used in this table).
    const cells = l.slice(2, -2).split(' | ')
    out.push({ line: i + 1, cupy: cells[0], ours: cells[1], status: cells[2] })
  })
  return out
}

/** The first code span of a cell: the name it claims (`A.b.c` properties, `A#b` a prototype member). */
function claimed(cell: string): string | undefined {
  return /`([\w$]+(?:[.#][\w$]+)*)`/.exec(cell)?.[1]
}

/** Whether `name` resolves on the package's exports. */
function exists(name: string): boolean {
  const [head, member] = name.split('#')
  let v: any = cuda
  for (const part of head.split('.')) {
    if (v === undefined || v === null || !(part in Object(v))) return false
    v = v[part]
  }
  if (member === undefined) return v !== undefined
  return typeof v === 'function' && member in v.prototype
}

test('the inventory has rows, each with a known status', (t) => {
  const all = rows()
  t.true(all.length > 100, `${all.length} rows`)
  for (const r of all) t.true(STATUSES.includes(r.status), `line ${r.line}: status '${r.status}'`)
})

test('every ✓ and part row names something the package exports', (t) => {
  for (const r of rows().filter((r) => r.status === '✓' || r.status === 'part')) {
    const name = claimed(r.ours)
    t.truthy(name, `line ${r.line} (${r.cupy}): a ${r.status} row must name what it maps to`)
    if (name !== undefined) t.true(exists(name), `line ${r.line} (${r.cupy}): ${name} is not on the package's exports`)
  }
})

test('the stream protocol row: every Stream offers its stream under CUDA_STREAM', (t) => {
  t.is(typeof cuda.Stream.prototype[cuda.CUDA_STREAM], 'function')
})

test('the exclusions say why, and CUB and Thrust are among them', (t) => {
  const all = rows()
  for (const r of all.filter((r) => r.status === 'by-design' || r.status === '✗')) {
    t.true(r.ours.includes('—'), `line ${r.line}: an excluded row names nothing of ours`)
  }
  t.true(all.some((r) => r.status === 'by-design' && r.cupy.includes('cub.')))
  t.true(all.some((r) => r.status === 'by-design' && r.cupy.includes('thrust.')))
})

test('pending rows whose name has arrived are listed, to be flipped to ✓', (t) => {
  const arrived = rows().filter((r) => r.status === 'pending' && claimed(r.ours) !== undefined && exists(claimed(r.ours)!))
  for (const r of arrived) t.log(`line ${r.line}: ${claimed(r.ours)} exists now: flip "${r.cupy}" to ✓`)
  t.pass()
})
