import { Common } from '@ethereumjs/common'

const merged = new WeakMap<Common, WeakSet<object>>()

/**
 * ethereumjs merges its parameter tables into the Common again at every transaction and block header it builds
 * (Common.updateParams: a JSON round trip of each table, then a rebuild of the parameter cache). On a hot path
 * that is most of an eth_call. This makes a repeat of a table this Common already merged a no-op; new tables
 * still merge. Copies inherit it and keep their own record.
 */
export function mergeParamsOnce(common: Common): Common {
  const update = Common.prototype.updateParams
  common.updateParams = function (this: Common, params) {
    let seen = merged.get(this)
    if (seen === undefined) merged.set(this, (seen = new WeakSet()))
    if (seen.has(params)) return
    seen.add(params)
    update.call(this, params)
  }
  return common
}
