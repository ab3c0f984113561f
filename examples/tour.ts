// `npm start`: the tour of what cuda-node does, on whatever backend this machine has.
// The timeline goes to a fresh temporary directory, printed at the end.
import { tour } from '../cli/tour'

tour().catch((e) => {
  console.error(e)
  process.exitCode = 1
})
