// The Hardhat 3 peer of flashchain's benchmark: `hardhat node` on the default in-process EDR network
// (chain id 31337, the standard test mnemonic's 20 accounts with 10000 ETH each, automine).
// Hardhat takes bench/ (the nearest package.json) as its project root; its artifacts and cache go to the
// system's temporary directory, so a run leaves nothing in the repository.
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { defineConfig } from 'hardhat/config'

const scratch = join(tmpdir(), 'flashchain-bench-hardhat')

export default defineConfig({
  paths: {
    artifacts: join(scratch, 'artifacts'),
    cache: join(scratch, 'cache'),
  },
})
