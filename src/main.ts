/**
 * Process entry: `serve` (default), `worker`, `migrate`, `reindex`, `previews`, `demo`,
 * `unresolved-payments`, `moderate` (./commands.ts).
 *
 * Thin on purpose (issue 25, start time): before the service's ~1,300 modules load, which takes
 * most of a start's main thread, a serving process that will open the embedded database begins,
 * each on a thread of its own so that the other core does it meanwhile: compiling the database's
 * WebAssembly (./db/parser-baseline.ts) and, on a fresh data directory, unpacking the migrated
 * template into it (./db/first-start.ts). Only node built-ins and those modules load before them.
 *
 * The built entry runs from the bundle (scripts/build.mjs: dist/src/main.js imports dist/bundle/),
 * and turns on Node's compile cache before the service loads: V8's code for the bundle's ~5 MB,
 * kept from an earlier start, instead of compiled again (module loading −10 to −15 % of its CPU,
 * docs/benchmarks.md "Bundled, stop 42"). Node's own directory for it: NODE_COMPILE_CACHE, else
 * `node-compile-cache` in the OS's temporary directory; written as the process exits; none when
 * that directory cannot be made or NODE_DISABLE_COMPILE_CACHE=1 (the start is as without it).
 */
import { enableCompileCache } from 'node:module';
import { argumentsProblem } from './command-names.js';
import { beginFirstStart, servedDataDir } from './db/first-start.js';
import { compileEarly, opensHintedDatabase } from './db/parser-baseline.js';

const [command = 'serve', ...args] = process.argv.slice(2);
// arguments the command does not take are refused by ./commands.ts before it does anything: the
// early start must not make or fill a data directory for a command that will not run
if (argumentsProblem(command, args) === undefined) {
  if (opensHintedDatabase(command, process.env)) void compileEarly();
  const dataDir = servedDataDir(command, process.env);
  if (dataDir !== undefined) beginFirstStart(dataDir);
}
// from source, tsx compiles: the cache is the built entry's
if (import.meta.url.endsWith('.js')) enableCompileCache();
await import('./commands.js');
