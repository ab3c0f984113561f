// The tour: `npm start`. What cuda-node does, on whatever backend this machine has.
import { backend, Device } from '..'

const b = backend()
console.log(`backend: ${b.name} (${b.reason})`)
if (b.driverVersion) console.log(`driver: ${Math.floor(b.driverVersion / 1000)}.${(b.driverVersion % 1000) / 10}`)

for (let i = 0; i < Device.count(); i++) {
  const d = new Device(i)
  const { free, total } = d.memInfo()
  console.log(
    `device ${d.id}: ${d.name}, compute capability ${d.computeCapability}, ` +
      `${d.attributes.multiProcessorCount} SMs, ${(free / 2 ** 30).toFixed(1)} of ${(total / 2 ** 30).toFixed(1)} GiB free`,
  )
}
