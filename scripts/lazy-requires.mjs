/**
 * An esbuild plugin of the build (scripts/build.mjs), on its own for test/unit/lazy-requires.test.ts.
 */
import path from 'node:path';

/**
 * What a package requires at its top for a path a start never takes, given to that package (and
 * only to it) as a stand-in that requires the real module at its first use (docs/benchmarks.md
 * "Stop 44", issue 25):
 * - Node's built-ins, through `process.getBuiltinModule`: Fastify's `node:http2` and `node:https`
 *   (an HTTP/2 or TLS server, never asked for: ~10-15 ms of compiling node:http2 and node:tls at
 *   every start) and postgres.js's `tls` (a TLS connection to a server that asks for one; its ES
 *   import built node:tls's ES facade, which reads every export, `rootCertificates` parsing the
 *   ~140 root certificates: ~4-7 ms more);
 * - `yaml` for @fastify/swagger, which serialises a YAML document we never serve (our routes
 *   serve the JSON one): still in the bundle, evaluated at its first use instead of at every start.
 * Each importer is named with what it takes, and the build fails if one no longer asks for it (an
 * upgrade that moved the import). The stand-in is CommonJS, read only as `mod.name` at the call
 * (a `require`, or postgres.js's default import); esbuild's interop asks it for `__esModule`,
 * answered without loading.
 */
export function lazyRequires(root) {
  const LAZY = {
    'node_modules/fastify/lib/server.js': ['node:http2', 'node:https'],
    'node_modules/postgres/src/connection.js': ['tls'],
    'node_modules/@fastify/swagger/lib/spec/openapi/index.js': ['yaml'],
    'node_modules/@fastify/swagger/lib/spec/swagger/index.js': ['yaml'],
    'node_modules/@fastify/swagger/lib/mode/static.js': ['yaml'],
  };
  return {
    name: 'lazy-requires',
    setup(b) {
      const found = new Set();
      b.onResolve({ filter: /^((node:)?(http2|https|tls)|yaml)$/ }, (args) => {
        const importer = path.relative(root, args.importer).split(path.sep).join('/');
        if (!LAZY[importer]?.includes(args.path)) return undefined;
        found.add(`${importer} ${args.path}`);
        const builtin = args.path !== 'yaml';
        return {
          path: builtin ? args.path.replace(/^(node:)?/, 'node:') : args.path,
          namespace: 'lazy-require',
          pluginData: { builtin, resolveDir: path.dirname(args.importer) },
        };
      });
      b.onLoad({ filter: /.*/, namespace: 'lazy-require' }, (args) => ({
        loader: 'js',
        resolveDir: args.pluginData.resolveDir,
        contents: `let loaded;
const real = () => (loaded ??= ${args.pluginData.builtin ? 'process.getBuiltinModule' : 'require'}(${JSON.stringify(args.path)}));
module.exports = new Proxy({}, {
  get: (_, key) => (key === '__esModule' ? undefined : real()[key]),
  has: (_, key) => key in real(),
});
`,
      }));
      b.onEnd(() => {
        const wanted = Object.entries(LAZY).flatMap(([f, ms]) => ms.map((m) => `${f} ${m}`));
        const missing = wanted.filter((w) => !found.has(w));
        if (missing.length > 0) {
          throw new Error(`lazy requires no longer imported (update LAZY): ${missing.join(', ')}`);
        }
      });
    },
  };
}
