import type { ResolveHook } from 'node:module'

/** Resolves @ethereumjs packages as `require` would: to their CommonJS builds, which patches/ leaves untouched. */
export const resolve: ResolveHook = (specifier, context, nextResolve) =>
  specifier.startsWith('@ethereumjs/')
    ? nextResolve(specifier, { ...context, conditions: ['node', 'require', 'default'] })
    : nextResolve(specifier, context)
