/**
 * Process entry: `serve` (default), `worker`, `migrate`, `reindex`, `previews`, `demo`,
 * `unresolved-payments`, `moderate` (./commands.ts).
 *
 * Thin on purpose (issue 25, start time): before the service's ~1,300 modules load, which takes
 * most of a start's main thread, a serving process that will open the embedded database begins,
 * each on a thread of its own so that the other core does it meanwhile: compiling the database's
 * WebAssembly (./db/parser-baseline.ts) and, on a fresh data directory, unpacking the migrated
 * template into it (./db/first-start.ts). Only node built-ins and those modules load before them.
 */
import { beginFirstStart, servedDataDir } from './db/first-start.js';
import { compileEarly, opensHintedDatabase } from './db/parser-baseline.js';

const command = process.argv[2] ?? 'serve';
if (opensHintedDatabase(command, process.env)) void compileEarly();
const dataDir = servedDataDir(command, process.env);
if (dataDir !== undefined) beginFirstStart(dataDir);
await import('./commands.js');
