import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { adminUrl, databaseEnv, ON_POSTGRES } from '../helpers/postgres.js';

/**
 * A server whose connection limit is below the replicas' pools together (docs/deploying.md,
 * "Connections"): the connections past the limit are refused by the server (SQLSTATE 53300), and
 * the requests they were opened for answer 503 `database_unavailable`, never 500. The limit here
 * is a role's (3) under a pool of 10: the same refusal `max_connections` gives.
 */
describe.runIf(ON_POSTGRES)('more pool than the server allows', () => {
  let t: TestContext;
  let admin: postgres.Sql;
  const role = `limited_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    // a member of the owner of the test database's tables, not a superuser: the limit applies
    await admin.unsafe(`create role ${role} login connection limit 3 in role postgres`);
    const env = await databaseEnv();
    const url = new URL(env.DATABASE_URL!);
    url.username = role;
    t = await startTestApp({ ...env, DATABASE_URL: url.toString(), DATABASE_POOL_MAX: '10' });
  });
  afterAll(async () => {
    await t?.close();
    await admin?.unsafe(`drop role if exists ${role}`);
    await admin?.end();
  });

  it('answers what it can and 503 database_unavailable for the rest, never 500', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.app.inject(`/api/v1/search?q=widget+${i}`)),
    );
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 500)).toEqual([]);
    expect(statuses).toContain(200);
    for (const r of answers.filter((r) => r.statusCode !== 200)) {
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ error: 'database_unavailable', retry_after: 5 });
    }
  });
});
