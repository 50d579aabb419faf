import { z } from 'zod'

import { hash } from '../schemas.ts'
import { hardhatMethod } from './control.ts'

/** The next block's prevRandao (PREVRANDAO); the blocks after it derive theirs as before. */
export const hardhatSetPrevRandao = hardhatMethod('hardhat_setPrevRandao', z.tuple([hash]), ([prevRandao], { producer }) =>
  producer.planBlocks((plan) => {
    plan.nextPrevRandao = prevRandao
  }),
)
