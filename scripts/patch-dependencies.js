// npm's postinstall: applies patches/ to node_modules with patch-package. The patches make @ethereumjs faster
// without changing what it computes (each says why at the line it changes); patch-package fails the install if
// one no longer applies, so a dependency upgrade cannot drop them unnoticed.
// Plain JavaScript, because npm runs it with the system's Node, which may be older than the pinned one.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'

let bin
try {
  bin = createRequire(import.meta.url).resolve('patch-package/index.js')
} catch {
  // Installed as another project's dependency: patch-package (a dev dependency) is absent and the packages stay
  // as published, which only costs speed.
  process.exit(0)
}
const { status } = spawnSync(process.execPath, [bin, '--error-on-fail'], { stdio: 'inherit' })
process.exit(status ?? 1)
