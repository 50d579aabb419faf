/**
 * The console page: the files `npm run build:console` writes to console/dist, served at GET / and /assets/… from
 * memory, and the wallet's provider for other pages at GET /provider.js. They are read once, at start: a few small
 * files, and no request can make the server open another.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { Http1Response } from './http1.ts'

export type ConsolePage = {
  /** The response for a GET of this path (no query), or undefined when the path is none of the page's. */
  serve(path: string): Http1Response | undefined
}

/**
 * Where the build puts the page: console/dist at the package's root (the nearest directory with a package.json),
 * beside src/ in a checkout and beside dist/ in the package. Found from this module upward, since the package's
 * bundle puts this code in a file of its own (scripts/build-dist.ts), at another depth than src/server/.
 */
export const consoleDirectory = join(packageRoot(dirname(fileURLToPath(import.meta.url))), 'console', 'dist', '/')

function packageRoot(from: string): string {
  for (let directory = from; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json')) || dirname(directory) === directory) return directory
  }
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
}

/**
 * The page loads nothing from anywhere but the node, runs no inline script, and may not be framed (clickjacking its
 * Approve buttons). `no-cache`: a rebuilt page is picked up at the next load.
 */
const headers =
  "Content-Security-Policy: default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'\r\n" +
  'X-Frame-Options: DENY\r\n' +
  'X-Content-Type-Options: nosniff\r\n' +
  'Referrer-Policy: no-referrer\r\n' +
  'Cache-Control: no-cache\r\n'

/**
 * provider.js is loaded by pages of any origin, so it carries none of the page's policy: a script response is not a
 * document. It may be loaded cross-origin (by a page that requires CORP or fetches it with CORS), and it holds nothing
 * secret.
 */
const providerHeaders =
  'Access-Control-Allow-Origin: *\r\n' +
  'Cross-Origin-Resource-Policy: cross-origin\r\n' +
  'X-Content-Type-Options: nosniff\r\n' +
  'Cache-Control: no-cache\r\n'

export function loadConsolePage(directory: string = consoleDirectory): ConsolePage {
  const files = new Map<string, Http1Response>()
  // Each file on its own: one that a build did not write leaves the others served.
  const add = (path: string, file: string, fileHeaders = headers) => {
    const contentType = contentTypes[extname(file)]
    if (contentType === undefined) return
    const body = readIfThere(() => readFileSync(file))
    if (body !== undefined) files.set(path, { status: 200, headers: fileHeaders, contentType, body })
  }
  add('/', join(directory, 'index.html'))
  add('/provider.js', join(directory, 'provider.js'), providerHeaders)
  for (const name of readIfThere(() => readdirSync(join(directory, 'assets'))) ?? []) add(`/assets/${name}`, join(directory, 'assets', name))

  const notBuilt: Http1Response = {
    status: 503,
    contentType: 'text/plain; charset=utf-8',
    body: 'The console page is not built. Run `npm run build:console` in the checkout, then restart the node.\n',
  }
  return {
    serve(path) {
      const file = files.get(path === '/index.html' ? '/' : path)
      if (file !== undefined) return file
      return path === '/' && !files.has('/') ? notBuilt : undefined
    },
  }
}

/** What `read` gives, or undefined when the file or folder is not there. */
function readIfThere<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}
