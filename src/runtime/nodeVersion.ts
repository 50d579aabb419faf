/**
 * The library's first import: an older Node gets one line naming the version needed, instead of failing on a module
 * it lacks. 22.13 is the first Node whose node:sqlite needs no flag. bin/flashchain.js makes the same check for the
 * command line.
 */
const MINIMUM = [22, 13] as const
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)

if (major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1])) {
  throw new Error(`flashchain needs Node.js ${MINIMUM.join('.')} or newer (found v${process.versions.node})`)
}
