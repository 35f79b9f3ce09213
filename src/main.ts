/**
 * Process entry: `serve` (default), `worker`, `migrate`, `reindex`, `previews`, `demo`,
 * `unresolved-payments`, `moderate` (./commands.ts).
 *
 * Thin on purpose (issue 25, start time): before the service's ~1,400 modules load, which takes
 * most of a start's main thread, a serving process that will open the embedded database begins
 * compiling the database's WebAssembly (./db/parser-baseline.ts), so that V8's compile thread does
 * it on the other core meanwhile. Only node built-ins and that one module are loaded before it.
 */
import { compileEarly, opensHintedDatabase } from './db/parser-baseline.js';

if (opensHintedDatabase(process.argv[2] ?? 'serve', process.env)) void compileEarly();
await import('./commands.js');
