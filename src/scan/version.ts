import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What a signed scan report names as "the scanner": the marketplace's package version, and a
 * SHA-256 over the scan library's own modules (this folder's `.ts`/`.js` files, sorted by name),
 * so that any change of a rule changes the hash. Computed once per process.
 */
export interface ScannerIdentity {
  version: string;
  ruleSetHash: `0x${string}`;
}

let identity: ScannerIdentity | undefined;

export function scannerIdentity(): ScannerIdentity {
  if (identity) return identity;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const hash = createHash('sha256');
  for (const f of readdirSync(here)
    .filter((n) => /\.(?:ts|js)$/.test(n) && !n.endsWith('.d.ts'))
    .sort()) {
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(path.join(here, f)))
      .update('\0');
  }
  identity = { version: packageVersion(here), ruleSetHash: `0x${hash.digest('hex')}` };
  return identity;
}

function packageVersion(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'artifact-marketplace' && pkg.version) return pkg.version;
    }
    if (path.dirname(dir) === dir) return '0.0.0';
  }
}
