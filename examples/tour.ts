// `npm start`: the tour of what cuda-node does, on whatever backend this machine has.
import path from 'node:path'
import { tour } from '../cli/tour'

tour(path.join(__dirname, 'out')).catch((e) => {
  console.error(e)
  process.exitCode = 1
})
