import { loadDemoData } from '../../src/domain/discovery/demo.js';
import { startListeningTestApp } from '../helpers/app.js';

/**
 * Child of the MCP bench: the marketplace (the real app on a loopback socket, demo catalogue) in
 * a process of its own, as an agent meets it; prints its base URL and stops when stdin closes.
 */
const t = await startListeningTestApp();
await loadDemoData(t.runtime.deps);
process.stdout.write(`${t.base}\n`);
process.stdin.resume();
process.stdin.once('end', () => void t.close().finally(() => process.exit(0)));
