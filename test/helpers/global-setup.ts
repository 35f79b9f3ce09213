import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/config.js';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { buildTemplate as buildShippedTemplate, findTemplate } from '../../src/db/template.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { ensureBuilt } from './build.js';
import {
  adminUrl,
  databaseUrl,
  ON_POSTGRES,
  PG_TEMPLATE_DB,
  PG_TEST_ADMIN_TOKEN,
  PG_TEST_ATTESTATION_KEY,
  PG_TEST_SIGNING_SECRET,
} from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A tarball of a migrated embedded database, which every test app starts from (./app.ts). */
    dbTemplate: string;
  }
}

const CACHE_DIR = path.resolve('node_modules/.cache/marketplace-test');

/**
 * Runs initdb and every migration once, not once per test file: each file's embedded database then
 * starts from this dump (a copy, so files still never share rows). The dump is kept between runs,
 * keyed by the migrations and the PGlite version, so a single file run again starts at once.
 */
export default async function setup(project: TestProject): Promise<void> {
  // dist/ once, before any worker starts (a clean clone has none): the files that run the built
  // entries then find it current, and two workers never build it at the same time
  await ensureBuilt();
  if (ON_POSTGRES) await migratePostgresTemplate();
  // TEST_DB_TEMPLATE=off: every file runs initdb and the migrations itself (to measure the gain).
  if (process.env.TEST_DB_TEMPLATE === 'off') return;
  // The migrated data directory `npm run build` ships (src/db/template.ts), made here when
  // a clean clone runs the tests unbuilt: every first start on disk (the service processes tests
  // spawn too) copies it instead of running initdb.
  if (!(await findTemplate()).ok) await buildShippedTemplate();
  const file = path.join(CACHE_DIR, `db-${await templateKey()}.tar`);
  const cached = await readFile(file).then(
    () => true,
    () => false,
  );
  if (!cached) await buildTemplate(file);
  project.provide('dbTemplate', file);
}

async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  const pglite = await readFile('node_modules/@electric-sql/pglite/package.json', 'utf8');
  hash.update(JSON.parse(pglite).version as string);
  for (const name of (await readdir(MIGRATIONS_DIR)).sort()) {
    hash.update(name).update(await readFile(path.join(MIGRATIONS_DIR, name)));
  }
  return hash.digest('hex').slice(0, 16);
}

async function buildTemplate(file: string): Promise<void> {
  const config = loadConfig({ EMBEDDED_DB_IN_MEMORY: 'true', LOG_LEVEL: 'silent' });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  try {
    const dump = await runtime.db.dump!();
    await mkdir(CACHE_DIR, { recursive: true });
    // Older templates (other migrations) go; the new one appears whole or not at all.
    for (const old of await readdir(CACHE_DIR))
      await rm(path.join(CACHE_DIR, old), { force: true });
    const partial = `${file}.${process.pid}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
  } finally {
    await runtime.close();
  }
}

/**
 * The Postgres tier (./postgres.ts): a template database with the extensions and every migration,
 * made anew each run (the cluster is thrown away after it), which each test database copies.
 */
async function migratePostgresTemplate(): Promise<void> {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists ${PG_TEMPLATE_DB} with (force)`);
    await admin.unsafe(`create database ${PG_TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const config = loadConfig({
    DATABASE_URL: databaseUrl(PG_TEMPLATE_DB),
    URL_SIGNING_SECRET: PG_TEST_SIGNING_SECRET,
    ADMIN_TOKEN: PG_TEST_ADMIN_TOKEN,
    ATTESTATION_PRIVATE_KEY: PG_TEST_ATTESTATION_KEY,
    LOG_LEVEL: 'silent',
  });
  // the runtime's start: every migration and the default embedder's vector index (built in the
  // background on a server: awaited, so that every copy holds it valid)
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  await runtime.indexBuilds;
  await runtime.close();
}
