import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig } from '../../src/config.js';
import { McpEnvSchema } from '../../mcp/config.js';

/**
 * The configuration tables an operator reads (docs/operating.md, README.md, docs/mcp.md) against
 * the schemas that read the environment: every documented key is read, every read key is
 * documented, and a default shown as a literal is the default the schema gives.
 */

interface Row {
  keys: string[];
  prefixes: string[];
  defaults: string;
  rest: string;
}

const KEY = /`([A-Z][A-Z0-9_]+)(\*)?`/g;

/** Rows of every markdown table whose first header cell is `key`. */
function keyRows(markdown: string): Row[] {
  const rows: Row[] = [];
  let inTable = false;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const cells = line.split('|').slice(1, -1);
    const first = cells[0]?.trim() ?? '';
    if (first.toLowerCase() === 'key') {
      inTable = true;
      continue;
    }
    if (!inTable || /^-+$/.test(first)) continue;
    const keys: string[] = [];
    const prefixes: string[] = [];
    for (const [, name, star] of first.matchAll(KEY)) (star ? prefixes : keys).push(name!);
    const hasDefault = cells.length >= 3;
    rows.push({
      keys,
      prefixes,
      defaults: hasDefault ? (cells[1]?.trim() ?? '') : '',
      rest: cells.slice(hasDefault ? 2 : 1).join('|'),
    });
  }
  return rows;
}

const shown = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v));

/** Literal defaults (`x`) that line up one to one with the row's keys, against the schema's. */
function defaultMismatches(rows: Row[], defaults: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const parts = row.defaults.split(/\s*(?:,|\s\/)\s+/);
    if (parts.length !== row.keys.length) continue;
    row.keys.forEach((key, i) => {
      const part = parts[i]!.trim();
      const literal = /^`([^`]*)`$/.exec(part)?.[1] ?? (/^[\d.]+$/.test(part) ? part : undefined);
      if (literal === undefined || literal.includes('HOST') || literal.includes('DIR')) return;
      if (!(key in defaults)) return;
      if (shown(defaults[key]) !== literal)
        out.push(`${key}: documented ${literal}, schema ${shown(defaults[key])}`);
    });
  }
  return out;
}

const doc = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');
const configKeys = Object.keys(
  (ConfigSchema.in as unknown as { shape: Record<string, unknown> }).shape,
);
const mcpKeys = Object.keys(McpEnvSchema.shape);

describe('docs/operating.md configuration reference', () => {
  it('names only keys src/config.ts reads, and every key it reads', async () => {
    const rows = keyRows(await doc('docs/operating.md'));
    const named = rows.flatMap((r) => r.keys);
    expect(named.filter((k) => !configKeys.includes(k))).toEqual([]);
    const prefixes = rows.flatMap((r) => r.prefixes);
    // A key may also be documented inside a row's meaning (STORAGE's S3_* settings).
    const mentioned = new Set(rows.flatMap((r) => [...r.rest.matchAll(KEY)].map((m) => m[1]!)));
    const undocumented = configKeys.filter(
      (k) => !named.includes(k) && !mentioned.has(k) && !prefixes.some((p) => k.startsWith(p)),
    );
    expect(undocumented).toEqual([]);
  });

  it('shows each literal default as loadConfig gives it', async () => {
    const rows = keyRows(await doc('docs/operating.md'));
    expect(defaultMismatches(rows, loadConfig({}))).toEqual([]);
  });
});

describe('every other page with a table of keys', () => {
  it('names only keys the service or the MCP server reads, with their defaults', async () => {
    const { readdir } = await import('node:fs/promises');
    const pages = (await readdir(new URL('../../docs/', import.meta.url)))
      .filter((f) => f.endsWith('.md') && f !== 'mcp.md')
      .map((f) => `docs/${f}`);
    const problems: string[] = [];
    let tables = 0;
    for (const page of ['README.md', ...pages]) {
      const rows = keyRows(await doc(page));
      if (rows.length) tables++;
      for (const k of rows.flatMap((r) => r.keys))
        if (!configKeys.includes(k) && !mcpKeys.includes(k))
          problems.push(`${page}: ${k} is read by nothing`);
      for (const m of defaultMismatches(rows, loadConfig({}))) problems.push(`${page}: ${m}`);
    }
    expect(tables).toBeGreaterThanOrEqual(3);
    expect(problems).toEqual([]);
  });
});

describe('docs/mcp.md configuration', () => {
  it('names every key mcp/config.ts reads, only those, with their defaults', async () => {
    const rows = keyRows(await doc('docs/mcp.md'));
    const named = rows.flatMap((r) => r.keys).filter((k) => !k.startsWith('OTEL_'));
    expect(named.filter((k) => !mcpKeys.includes(k))).toEqual([]);
    expect(mcpKeys.filter((k) => !named.includes(k))).toEqual([]);
    expect(defaultMismatches(rows, McpEnvSchema.parse({}))).toEqual([]);
  });
});

describe('docs/deploying.md compose example', () => {
  it('is a configuration every process of it starts with', async () => {
    const text = await doc('docs/deploying.md');
    const block = /```yaml\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
    // the shared environment (`environment: &env`), its ${VARIABLES} given valid values
    const given: Record<string, string> = {
      URL_SIGNING_SECRET: 's'.repeat(32),
      ADMIN_TOKEN: 'a'.repeat(32),
      ATTESTATION_PRIVATE_KEY: `0x${'1'.repeat(64)}`,
      RPC_URL_BASE: 'https://base.example',
      RPC_URL_POLYGON: 'https://polygon.example',
    };
    const env: Record<string, string> = {};
    for (const [, key, raw] of block.matchAll(/^ {4}([A-Z][A-Z0-9_]+): (.*?)(?: #.*)?$/gm)) {
      const value = raw!.replace(/^'(.*)'$/, '$1');
      env[key!] = value.replace(/^\$\{([A-Z0-9_]+)\}$/, (_, name: string) => given[name] ?? 'x');
    }
    expect(env.DATABASE_URL).toMatch(/^postgres:/);
    expect(() => loadConfig(env)).not.toThrow();
    expect(() => loadConfig({ ...env, IN_PROCESS_WORKER: 'false' })).not.toThrow();
  });
});
