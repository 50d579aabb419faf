// npm's prepack: the package ships the @ethereumjs packages as they are in node_modules (bundleDependencies), so
// that an installed flashchain runs as fast as the checkout. A tree installed with --ignore-scripts holds them as
// published, and a package packed from it would be slower without a word: this refuses to pack it.
import { unpatchedPackages } from '../src/chain/ethereumjs/patches.ts'

const unpatched = unpatchedPackages()
if (unpatched.length > 0) {
  process.stderr.write(`refusing to pack: ${unpatched.join(', ')} without the speed patches; run npm install (it applies patches/)\n`)
  process.exit(1)
}
