import { afterAll, beforeAll, expect, it } from 'vitest';
import { zipOf, uniqueProject } from '../helpers/archives.js';
import { captureLogs } from '../helpers/logs.js';
import { startS3 } from '../helpers/s3.js';
import {
  listItem,
  sellerStatus,
  startSellingApp,
  type SellingContext,
} from '../helpers/selling.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * The object store out of reach while a listing waits for its scan (docs/operating.md, "After a
 * crash"): the store's outage is not the archive's fault, so the scan waits for it without using
 * up its attempts (one here), and scans the listing once the store is back. The store is s3rver
 * behind a relay the test cuts.
 */
let t: SellingContext;
let s3: Awaited<ReturnType<typeof startS3>>;
let relay: Awaited<ReturnType<typeof startTcpRelay>>;
const { logger, lines } = captureLogs();

beforeAll(async () => {
  s3 = await startS3();
  const endpoint = new URL(s3.env.S3_ENDPOINT);
  relay = await startTcpRelay({ host: endpoint.hostname, port: Number(endpoint.port) });
  endpoint.port = String(relay.port);
  t = await startSellingApp(
    { ...s3.env, S3_ENDPOINT: endpoint.origin, SCAN_MAX_ATTEMPTS: '1' },
    { logger },
  );
});
afterAll(async () => {
  await t?.close();
  await relay?.close();
  await s3?.close();
});

it('a scan waits for the object store without using its attempts, then scans the listing', async () => {
  const seller = newWallet();
  const itemId = await listItem(t, seller, { bytes: zipOf(uniqueProject()) });

  await relay.cut();
  try {
    await t.work();
    await t.work();
  } finally {
    await relay.restore();
  }
  // not refused for the store's outage: still waiting for its scan, one warn line per wait
  const waiting = await sellerStatus(t, seller, itemId);
  expect(waiting.status).not.toBe('rejected');
  const waits = lines.filter(
    (l) => l.msg === 'job waits: what it reads is out of reach; not counted as an attempt',
  );
  expect(waits.length).toBeGreaterThanOrEqual(1);
  expect(waits[0]).toMatchObject({ level: 40, reason: 'the object store is out of reach' });
  expect(lines.filter((l) => l.level >= 50)).toEqual([]);

  // due again after the wait (at least a second)
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  await t.work();
  expect(await sellerStatus(t, seller, itemId)).toMatchObject({
    status: 'active',
    reason: 'approved',
  });
});
