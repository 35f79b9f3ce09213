import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The migrations' directory at the package root (two levels up from `src/db/` when run from source,
 * three from the compiled `dist/src/db/`). A module of its own, so that the template's check
 * (./template.ts), which a first start runs on a thread of its own, loads no more than this.
 */
export const MIGRATIONS_DIR = [
  new URL('../../migrations/', import.meta.url),
  new URL('../../../migrations/', import.meta.url),
]
  .map((u) => fileURLToPath(u))
  .find((dir) => existsSync(dir)) as string;
