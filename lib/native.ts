// Loads the addon (a local build, or the prebuilt package for this platform, through the loader
// napi-rs generates) and hands it the error factory, so native failures arrive as our classes.
import { makeError } from './errors'
import type * as Binding from '../native'

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const native: typeof Binding = require('../native.js')

native.registerErrorFactory(makeError)
