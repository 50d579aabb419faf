import { z } from 'zod'

import { defineMethod } from '../method.ts'
import { data } from '../schemas.ts'

/** `(id)`: removes a filter; false when there was none by that id. */
export const uninstallFilter = defineMethod({
  name: 'eth_uninstallFilter',
  access: 'public',
  params: z.tuple([data]),
  handler: ([id], { filters }): boolean => filters.uninstall(id),
})
