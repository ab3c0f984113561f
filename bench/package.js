// The package as its users load it — the JS `npm run build` compiles — with the few internals the
// bench reaches for. The bench's TS imports the package through this file because under tsx a TS
// file's `import '..'` loads the TS sources instead, compiled on the fly by esbuild (its module
// getters and interop differ from what ships), and the bench would time code nobody runs.
'use strict'
module.exports = {
  ...require('../index.js'),
  native: require('../lib/native.js').native,
  own: require('../lib/object.js').own,
  register: require('../lib/callbacks.js').register,
}
