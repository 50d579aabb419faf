import { paramsBlock } from '@ethereumjs/block'
import { Common } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'

/**
 * Common's parameter set and cache, both protected in `@ethereumjs/common`: `dist/esm/common.js:237`
 * `_buildParamsCache()` rebuilds `_paramsCache` from `_params` (and `updateParams`, line 61, merges a table into
 * `_params` and calls it); `copy()` (line 806) takes both objects by reference, so copies share them.
 */
type CommonInternals = { _params: object; _paramsCache: object; _buildParamsCache(): void }

/** The parameter tables merged into each parameter set, and those each parameter cache was built from. */
const merged = new WeakMap<object, Set<object>>()
const builtFrom = new WeakMap<object, Set<object>>()

/**
 * ethereumjs merges its parameter tables into the Common again at every transaction and block header it builds
 * (Common.updateParams: a JSON round trip of each table, then a rebuild of the parameter cache; the callers are
 * `@ethereumjs/tx` `dist/esm/util/internal.js:121` and `legacy/tx.js:71`, `@ethereumjs/block`
 * `dist/esm/header/header.js:43`), and each of those works on a fresh copy of the Common. On a hot path that was
 * most of an eth_call. Copies share their original's parameter set and cache, so this records which tables each
 * cache was built from: merging a table the cache already holds is skipped; anything else merges as before. The
 * transaction and header tables are merged here first, so the per-transaction copies find them in.
 *
 * If `_buildParamsCache` is renamed, the record is never made and every merge runs as before (slower). If a copy
 * stopped sharing `_params` and `_paramsCache`, or a cache came to hold more than its tables and the fork, a skipped
 * merge could leave a parameter out: paramsCache.test.ts and the state tests would fail
 * (docs/patches.md#reaches-into-ethereumjs).
 */
export function mergeParamsOnce(common: Common): Common {
  const update = Common.prototype.updateParams
  const internals = common as unknown as CommonInternals
  const build = internals._buildParamsCache
  internals._buildParamsCache = function (this: CommonInternals) {
    build.call(this)
    builtFrom.set(this._paramsCache, new Set(merged.get(this._params)))
  }
  common.updateParams = function (this: Common, params) {
    const self = this as unknown as CommonInternals
    if (builtFrom.get(self._paramsCache)?.has(params) === true) return
    let tables = merged.get(self._params)
    if (tables === undefined) merged.set(self._params, (tables = new Set()))
    tables.add(params)
    update.call(this, params)
  }
  common.updateParams(paramsTx)
  common.updateParams(paramsBlock)
  return common
}
