import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asWallet,
  listItem,
  sellerStatus,
  startSellingApp,
  type SellingContext,
} from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';
import { CORPUS } from '../scan-corpus/index.js';

/**
 * Issue 23 end to end, one representative per corpus family: listed (uploaded, fee paid), scanned
 * by the worker, and the owner's status says `rejected` with the finding that names what to fix
 * (rule, kind, file), or `active` for an ordinary project. Nobody else sees the findings.
 */
let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ MAX_ACTIVE_LISTINGS: '1000' });
});
afterAll(() => t?.close());

const caseNamed = (name: string) => {
  const c = CORPUS.find((x) => x.name === name);
  if (!c) throw new Error(`no corpus case ${name}`);
  return c;
};

const REPRESENTATIVES: Array<[string, { rule: string; kind: string; file?: string }]> = [
  ['links/zip-symlink-host-beos-zip', { rule: 'symlink', kind: 'link', file: 'etc-passwd' }],
  [
    'names/reserved-aux-mixed-case-tar.gz',
    { rule: 'reserved_name', kind: 'name', file: 'lib/Aux.js' },
  ],
  [
    'bombs/gzip-data-file-zip',
    { rule: 'compression_ratio', kind: 'bomb', file: 'fixtures/events.json.gz' },
  ],
  [
    'smuggling/local-stored-central-deflate-zip',
    { rule: 'local_header_mismatch', kind: 'structure', file: 'payload.js' },
  ],
  // (GIF+zip itself is refused at upload, before the fee: its bytes do not start as a zip.)
  [
    'polyglots/nested-xz-tar.gz',
    { rule: 'unscannable_archive', kind: 'structure', file: 'dist/bundle.js.xz' },
  ],
  [
    'traversal/pax-path-dotdot-tar.gz',
    { rule: 'path_traversal', kind: 'traversal', file: '../../.bashrc' },
  ],
];

describe('the owner sees what to fix', () => {
  const seller = newWallet();

  it.each(REPRESENTATIVES)('%s: rejected with its finding', async (name, finding) => {
    const c = caseNamed(name);
    const id = await listItem(t, seller, { bytes: await c.build(), compression: c.compression });
    await t.work();
    const status = await sellerStatus(t, seller, id);
    expect(status).toEqual({
      status: 'rejected',
      reason: 'safety_checks_failed',
      findings: [expect.objectContaining(finding)],
    });
    // Only the owner: another wallet gets 404, the public status stays compact (404 until active).
    const stranger = await asWallet(t, newWallet(), 'GET', `/api/v1/seller/items/${id}/status`);
    expect(stranger.statusCode).toBe(404);
    const pub = await t.app.inject(`/api/v1/items/${id}/status`);
    expect(pub.statusCode).toBe(404);
    expect(pub.body).not.toContain(finding.rule);
  });

  it('an ordinary project with a vendored test jar, gzip fixtures, lockfiles and a notebook goes live', async () => {
    for (const name of ['benign-java/project-0-zip', 'benign-python/project-1-tar.gz']) {
      const c = caseNamed(name);
      const id = await listItem(t, seller, { bytes: await c.build(), compression: c.compression });
      await t.work();
      expect(await sellerStatus(t, seller, id)).toEqual({ status: 'active', reason: 'approved' });
    }
  });
});
