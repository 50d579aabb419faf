// What `require('flashchain')` loads: the package is an ES module, and its graph awaits WebAssembly at load, which
// require() of ESM cannot do. One clear line instead of ERR_REQUIRE_ASYNC_MODULE.
throw new Error("flashchain is an ES module: use `import { createFlashchain } from 'flashchain'`, or `await import('flashchain')` from CommonJS")
