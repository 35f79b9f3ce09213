import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** How `npm start` runs node: the environment it sets and node's own flags, before the entry. */
export interface ServedNode {
  env: Record<string, string>;
  execArgv: string[];
}

/**
 * The node settings of package.json's `start` script (`[NAME=value...] exec node [--flag...]
 * dist/src/main.js serve`), which the Dockerfile's ENV and CMD repeat: benches start the built
 * entry with them, so that they measure the process an operator runs.
 */
export function servedNode(root = ROOT): ServedNode {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = pkg.scripts.start!.trim().split(/\s+/);
  const env: Record<string, string> = {};
  const execArgv: string[] = [];
  let i = 0;
  for (; words[i] === 'exec' || /^[A-Z_][A-Z0-9_]*=/.test(words[i] ?? ''); i++) {
    if (words[i] === 'exec') continue;
    const [name, ...value] = words[i]!.split('=');
    env[name!] = value.join('=');
  }
  if (words[i] !== 'node') throw new Error(`start script does not run node: ${pkg.scripts.start}`);
  for (i++; words[i]?.startsWith('--'); i++) execArgv.push(words[i]!);
  return { env, execArgv };
}
