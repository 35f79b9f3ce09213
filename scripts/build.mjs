#!/usr/bin/env node
/**
 * The one build of the project, for every path that writes dist/ (`npm run build`, the tests'
 * test/helpers/build.ts, the Dockerfile through `npm run build`): TypeScript (tsconfig.build.json)
 * to dist/, the service bundled for its start (dist/bundle/, see bundle() below), the assets beside
 * them (dist/assets: the console's files, the embedder's word vectors, the demo projects, the agent
 * guides; `npm start` reads them there), then the migrated database template (dist/db-template).
 * `--code`: the first three only; `--bundle-only`: the bundle alone, over tsc's existing output.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { lazyRequires } from './lazy-requires.mjs';

const root = path.resolve(import.meta.dirname, '..');
const node = (...args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });

if (!process.argv.includes('--bundle-only')) {
  node(path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json');
}
await bundle();
if (process.argv.includes('--bundle-only')) process.exit(0);
await checkPgliteEdits();
const assets = path.join(root, 'dist/assets');
cpSync(path.join(root, 'assets'), assets, { recursive: true });
// a copy over an existing folder leaves its time: dated now, as fresh as the code beside it
utimesSync(assets, new Date(), new Date());
if (!process.argv.includes('--code')) node(path.join(root, 'dist/src/db/build-template.js'));

/**
 * Issue 25 (start time): what `npm start`, `npm run demo` and `worker` load, src/main.ts and all it
 * imports, as a few ES modules in dist/bundle/ (esbuild), so that a start resolves and reads a
 * dozen files instead of ~1,300. dist/src/main.js, the entry every script, the Dockerfile and the
 * benches name, becomes one line that imports dist/bundle/main.js; the rest of dist/src stays as
 * tsc wrote it, for what the bundle does not hold (the MCP server's dist/mcp, the scan CLI, the
 * build of the template) and for the worker threads, which load their own modules from it
 * (./db/parser-baseline, ./db/first-start, ./db/pglite-thread-worker: as before the bundle).
 *
 * - every `import.meta.url` in our sources is rewritten to the URL its module has in dist/src, so
 *   each path found from it (assets, migrations, the template, the worker files, `createRequire`)
 *   is the same as unbundled. The bundle's files are all in one folder (no chunk folder), so one
 *   relative path per module holds in whichever file esbuild puts it;
 * - the lazy imports stay lazy: code splitting makes each dynamic `import()` a file of its own,
 *   loaded at its first call (test/unit/start-modules.test.ts reads dist/bundle/meta.json);
 * - packages stay external (resolved from node_modules at run time, as before) when they find
 *   their own files from their own location (PGlite's wasm, data and extension tarballs; the
 *   embedder's model), hook module loading (OpenTelemetry's instrumentations), are loaded through
 *   `createRequire` already (pino-pretty, markdown-it, keccak and secp256k1's native builds,
 *   spdx-license-list's JSON) or are large, lazily loaded and of no use to a start (the S3 SDK).
 */
async function bundle() {
  const { build, transform } = await import('esbuild');
  const outdir = path.join(root, 'dist/bundle');
  const ours = [path.join(root, 'src') + path.sep, path.join(root, 'mcp') + path.sep];
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    chunkNames: '[name]-[hash]',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    external: [
      '@electric-sql/*',
      '@energetic-ai/*',
      '@opentelemetry/*',
      '@aws-sdk/*',
      'pino-pretty',
      '@fastify/ajv-compiler',
      '@fastify/fast-json-stringify-compiler',
      'markdown-it',
      'keccak',
      'secp256k1',
      'spdx-license-list',
    ],
    // the CommonJS packages bundled (fastify's, pino's...) require node's built-ins
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    plugins: [
      lazyRequires(root),
      {
        name: 'module-url-as-built',
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, async (args) => {
            if (!ours.some((dir) => args.path.startsWith(dir))) return undefined;
            const text = await readFile(args.path, 'utf8');
            const built = path
              .relative(outdir, path.join(root, 'dist', path.relative(root, args.path)))
              .replace(/\.ts$/, '.js')
              .split(path.sep)
              .join('/');
            const url = `new URL(${JSON.stringify(built)}, import.meta.url).href`;
            return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
          });
        },
      },
    ],
  });
  writeFileSync(path.join(outdir, 'meta.json'), JSON.stringify(result.metafile));
  // esbuild leaves an earlier build's chunks (their names hash their content): only this build's
  // stay, removed after it (a start loading the bundle meanwhile finds every file it names)
  const made = new Set(Object.keys(result.metafile.outputs).map((f) => path.join(root, f)));
  made.add(path.join(outdir, 'meta.json'));
  for (const f of readdirSync(outdir).map((n) => path.join(outdir, n))) {
    if (!made.has(f)) rmSync(f, { recursive: true, force: true });
  }
  for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'))) {
    await asciiComments(path.join(root, file), transform);
  }
  writeFileSync(
    path.join(root, 'dist/src/main.js'),
    "// the service's entry, bundled (scripts/build.mjs): dist/bundle/main.js\nimport '../bundle/main.js';\n",
  );
}

/**
 * The edits the opener makes to PGlite's `pglite.wasm` as it compiles it (src/db/parser-baseline.ts):
 * Postgres's start without zeroing fresh memory (src/db/fresh-mmap.ts: it rests on the exact code
 * of a few functions, checked against their digests) and the parser's compilation hint. A start
 * whose module does not fit runs without them, with a warning: the build fails instead, so that an
 * upgraded PGlite is checked (docs/operating.md "PGlite's module") before it ships.
 */
async function checkPgliteEdits() {
  const url = (file) => pathToFileURL(path.join(root, file)).href;
  const { pgliteWasmPath, withEdits } = await import(url('dist/src/db/parser-baseline.js'));
  const { bytes, failed } = withEdits(readFileSync(pgliteWasmPath()), true);
  if (failed.length > 0 || !globalThis.WebAssembly.validate(bytes)) {
    const why = failed.map((f) => `${f.edit}: ${f.reason}`).join('; ') || 'an invalid module';
    throw new Error(
      `PGlite's pglite.wasm does not fit the edits the embedded database's start relies on (${why}); ` +
        'see docs/operating.md "PGlite\'s module" before upgrading PGlite',
    );
  }
}

/**
 * V8 keeps a module's source for the life of the process (lazy compiles, `toString`), one byte a
 * character only when every character of it fits in one: a single `—` makes the whole file two
 * bytes a character. esbuild writes the code's strings, templates and regular expressions in ASCII
 * (its default `charset`), not the comments it keeps (ours and the packages': `—`, `§`, `→`), so
 * the bundle's largest files, whole packages and all of src/ joined, were held at twice their size
 * (~4 MB more of an idle process; docs/benchmarks.md "The bundle's source in two bytes"). Each
 * character outside ASCII becomes `?` (one per UTF-16 unit, so the source map's columns hold),
 * after checking that the code without its comments is unchanged: only comments held them.
 */
async function asciiComments(file, transform) {
  const text = readFileSync(file, 'utf8');
  const ascii = text.replace(/[^\0-\x7f]/gu, (c) => '?'.repeat(c.length));
  if (ascii === text) return;
  const code = async (js) =>
    (await transform(js, { loader: 'js', minifyWhitespace: true, legalComments: 'none' })).code;
  if ((await code(text)) !== (await code(ascii))) {
    throw new Error(`${file}: characters outside ASCII in its code, not only in comments`);
  }
  writeFileSync(file, ascii);
}
