import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { verifyTypedData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanAttestationSchema, type ScanAttestation } from '../../src/wire/previews.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { post, signIn, TEST_ADMIN_TOKEN } from '../helpers/console.js';
import {
  asWallet,
  listItem,
  sellerStatus,
  startSellingApp,
  type SellingContext,
} from '../helpers/selling.js';
import { clientFor, newWallet } from '../helpers/wallets.js';

/**
 * Issue 29 end to end: upload → scan → preview → buy → verify. The scan job computes the preview
 * while it walks the archive and signs the scan report as the listing turns active; the buyer
 * reads the preview before paying, gets the report with the purchase, verifies it with viem alone
 * against the address in /api/v1/skills and checks the download's SHA-256 against it.
 */
let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ MAX_ACTIVE_LISTINGS: '100', ADMIN_TOKEN: TEST_ADMIN_TOKEN });
});
afterAll(() => t?.close());

const MIT = (
  createRequire(import.meta.url)('spdx-license-list/licenses/MIT.json') as { licenseText: string }
).licenseText.replace('<year> <copyright holders>', '2026 Example Authors');

const HEX = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';

function project(seed: string) {
  const base = uniqueProject(seed);
  return {
    ...base,
    'README.md': [
      `# Project ${seed}`,
      '',
      'Use <script>alert(1)</script> & friends.',
      // a 64-hex value in prose passes the scan (an example); the excerpt still hides it
      `The signing key looks like ${HEX}.`,
      ...Array.from({ length: 60 }, (_, i) => `line ${i}`),
    ].join('\n'),
    LICENSE: MIT,
    'package.json': JSON.stringify({
      name: `pkg-${seed}`,
      type: 'module',
      dependencies: { fastify: '^5.0.0' },
      devDependencies: { vitest: '^4.0.0' },
    }),
    'test/index.test.ts': `import { expect, it } from 'vitest';\nit('adds', () => expect(1 + 1).toBe(2));\n`,
  };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('preview and signed scan report', () => {
  const seller = newWallet();
  let id: string;
  let bytes: Buffer;

  beforeAll(async () => {
    bytes = zipOf(project('prv29a'));
    id = await listItem(t, seller, { bytes, compression: 'zip' });
    await t.work();
  });

  it('serves the preview of an active listing, bounded, escaped and redacted', async () => {
    const res = await t.app.inject(`/api/v1/items/${id}/preview`);
    expect(res.statusCode).toBe(200);
    const p = res.json();
    expect(p).toMatchObject({
      item_id: id,
      files: 5,
      license: { spdx: 'MIT', file: 'LICENSE' },
      manifests: [{ path: 'package.json', kind: 'npm', packages: ['fastify', 'vitest'] }],
      tests: { present: true, files: 1, frameworks: ['vitest'] },
      tree: { total: 5, truncated: false },
    });
    expect(p.tree.entries.map((e: { path: string }) => e.path)).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
      'src/index.ts',
      'test/index.test.ts',
    ]);
    expect(p.languages[0]).toMatchObject({ name: 'TypeScript', files: 2 });
    expect(p.lines).toBe(p.languages[0].lines);
    const excerpt: string = p.readme.excerpt;
    expect(excerpt).toContain('Use &lt;script&gt;alert(1)&lt;/script&gt; &amp; friends.');
    expect(excerpt).not.toContain('<script>');
    expect(excerpt).not.toContain(HEX);
    expect(excerpt).toContain('[redacted]');
    expect(excerpt.split('\n')).toHaveLength(40);
    expect(p.readme.truncated).toBe(true);
  });

  it('item detail and search carry the compact summary; search filters by licence', async () => {
    const detail = (await t.app.inject(`/api/v1/items/${id}`)).json();
    expect(detail.preview).toEqual({
      files: 5,
      lines: expect.any(Number),
      languages: ['TypeScript'],
      license: 'MIT',
    });
    const search = (q: string) =>
      t.app.inject(`/api/v1/search?q=${encodeURIComponent('Todo REST API')}${q}`);
    const mit = (await search('&license=mit')).json();
    expect(mit.map((r: { id: string }) => r.id)).toContain(id);
    expect(mit.find((r: { id: string }) => r.id === id).preview.license).toBe('MIT');
    const gpl = (await search('&license=GPL-3.0-only')).json();
    expect(gpl.map((r: { id: string }) => r.id)).not.toContain(id);
    const bad = await search('&license=' + encodeURIComponent('MIT; drop'));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_license');
  });

  it('answers 404 like item detail for what is not an active listing', async () => {
    const unknown = await t.app.inject(`/api/v1/items/${crypto.randomUUID()}/preview`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('item_not_found');
    expect((await t.app.inject('/api/v1/items/nope/preview')).json().error).toBe('invalid_item_id');
  });

  it('buys, verifies the report with viem alone and checks the download against it', async () => {
    const skills = (await t.app.inject('/api/v1/skills')).json();
    const signer = skills.scan_attestation.signer as Hex;
    expect(signer).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const published = ScanAttestationSchema.parse(
      (await t.app.inject(`/api/v1/items/${id}/attestation`)).json(),
    );
    expect(published.status).toBe('active');
    expect(published.typed_data.message).toMatchObject({
      itemId: id,
      archiveSha256: `0x${sha256(bytes)}`,
      archiveSize: bytes.length,
      seller: expect.stringMatching(new RegExp(`^${seller.address}$`, 'i')),
      verdict: 'accept',
      ruleSetHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });

    const buyer = clientFor(t.app, newWallet());
    const { order } = await buyer.acquire(id);
    const a = order.attestation as ScanAttestation;
    expect(a).toEqual(published);
    // the three lines of the guide
    const ok = await verifyTypedData({
      address: signer,
      ...a.typed_data,
      signature: a.signature as Hex,
    } as Parameters<typeof verifyTypedData>[0]);
    expect(ok).toBe(true);
    const download = await buyer.download(order.download_url);
    expect(`0x${download.sha256}`).toBe(a.typed_data.message.archiveSha256);

    // a statement whose message was changed does not verify
    const forged = await verifyTypedData({
      address: signer,
      ...a.typed_data,
      message: { ...a.typed_data.message, archiveSize: a.typed_data.message.archiveSize + 1 },
      signature: a.signature as Hex,
    } as Parameters<typeof verifyTypedData>[0]);
    expect(forged).toBe(false);
  });

  it('a purchase of a listing read before costs one database statement, the report read with the listing', async () => {
    const published = (await t.app.inject(`/api/v1/items/${id}/attestation`)).json();
    await clientFor(t.app, newWallet()).acquire(id); // the listing is read (and kept briefly)
    const queries: string[] = [];
    const options = t.runtime.deps.sql.options as { debug?: unknown };
    options.debug = (_connection: number, query: string) => queries.push(query);
    try {
      const { order } = await clientFor(t.app, newWallet()).acquire(id);
      expect(order.attestation).toEqual(published);
    } finally {
      delete options.debug;
    }
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/insert into orders/);
  });

  it('keeps the report verifiable after deletion, saying it is no longer active', async () => {
    const own = newWallet();
    const other = await listItem(t, own, { bytes: zipOf(project('prv29b')), compression: 'zip' });
    await t.work();
    const before = (await t.app.inject(`/api/v1/items/${other}/attestation`)).json();
    const del = await asWallet(t, own, 'DELETE', `/api/v1/items/${other}`);
    expect(del.statusCode).toBe(200);
    const after = await t.app.inject(`/api/v1/items/${other}/attestation`);
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual({ ...before, status: 'no_longer_active' });
    // the preview goes with the listing, like item detail
    expect((await t.app.inject(`/api/v1/items/${other}/preview`)).statusCode).toBe(404);
    const ok = await verifyTypedData({
      address: before.signer,
      ...after.json().typed_data,
      signature: after.json().signature,
    } as Parameters<typeof verifyTypedData>[0]);
    expect(ok).toBe(true);
    const none = await t.app.inject(`/api/v1/items/${crypto.randomUUID()}/attestation`);
    expect(none.statusCode).toBe(404);
    expect(none.json().error).toBe('attestation_not_found');
  });
  it('an operator take-down leaves the report verifiable and no longer active; no field can be changed', async () => {
    const own = newWallet();
    const other = await listItem(t, own, { bytes: zipOf(project('prv29c')), compression: 'zip' });
    await t.work();
    const signer = (await t.app.inject('/api/v1/skills')).json().scan_attestation.signer as Hex;
    const { jar, csrf } = await signIn(t.app);
    const down = await post(t.app, `/admin/listings/${other}/take-down`, jar, {
      reason: 'malware report',
      _csrf: csrf,
    });
    expect(down.statusCode).toBe(303);
    const res = await t.app.inject(`/api/v1/items/${other}/attestation`);
    expect(res.statusCode).toBe(200);
    const a = ScanAttestationSchema.parse(res.json());
    expect(a.status).toBe('no_longer_active');
    const verify = (typed: ScanAttestation['typed_data']) =>
      verifyTypedData({
        address: signer,
        ...typed,
        signature: a.signature as Hex,
      } as Parameters<typeof verifyTypedData>[0]);
    expect(await verify(a.typed_data)).toBe(true);
    const m = a.typed_data.message;
    const flip = (h: string) => h.slice(0, -1) + (h.endsWith('0') ? '1' : '0');
    const tampered: Partial<typeof m>[] = [
      { itemId: id },
      { archiveSha256: flip(m.archiveSha256) },
      { archiveSize: m.archiveSize - 1 },
      { seller: newWallet().address },
      { scannerVersion: `${m.scannerVersion}.1` },
      { ruleSetHash: flip(m.ruleSetHash) },
      { verdict: 'reject' as 'accept' },
      { scannedAt: m.scannedAt + 1 },
    ];
    for (const change of tampered) {
      expect(
        await verify({ ...a.typed_data, message: { ...m, ...change } }),
        JSON.stringify(change),
      ).toBe(false);
    }
    // nor the domain it was signed in
    expect(
      await verify({ ...a.typed_data, domain: { ...a.typed_data.domain, version: '2' } }),
    ).toBe(false);
  });
});

/**
 * Found by the s47 sweep: a manifest may name any JSON key as a dependency. A NUL in one made the
 * preview unstorable (jsonb refuses \u0000: "unsupported Unicode escape sequence"), so the scan of
 * a listing whose fee was paid failed three times and ended `processing_error`. A package name
 * with control characters or bidi overrides is no package name of any ecosystem (and would show a
 * buyer disguised text): the preview leaves it out, the listing goes live.
 */
describe('a manifest naming packages with control characters', () => {
  it('goes live; the preview lists only the real package names', async () => {
    const seller = newWallet();
    const files = project('prvnul');
    const bytes = zipOf({
      ...files,
      'package.json': JSON.stringify({
        name: 'pkg-prvnul',
        dependencies: { '\u0000evil': '1.0.0', 'left\u202Eright': '1.0.0', fastify: '^5.0.0' },
        devDependencies: { 'bell\u0007': '1', vitest: '^4.0.0' },
      }),
    });
    const id = await listItem(t, seller, { bytes, compression: 'zip' });
    await t.work();
    expect(await sellerStatus(t, seller, id)).toMatchObject({
      status: 'active',
      reason: 'approved',
    });
    const p = (await t.app.inject(`/api/v1/items/${id}/preview`)).json();
    expect(p.manifests).toEqual([
      { path: 'package.json', kind: 'npm', packages: ['fastify', 'vitest'] },
    ]);
  });

  // found by the s48 scan sweep: jsonb also refuses an unpaired UTF-16 surrogate ("\ud800"),
  // which a JSON manifest can spell with an escape (the file itself is plain ASCII) and a UTF-16
  // README can hold as two bytes; either made the preview unstorable and a paid scan end
  // processing_error
  it('a lone surrogate in a package name or a UTF-16 README goes live, not processing_error', async () => {
    const seller = newWallet();
    const readme = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('# Surrogates\n\nhalf a pair: \ud800 here\nthe rest \udc00 too\n', 'utf16le'),
    ]);
    const bytes = zipOf({
      ...project('prvsurrogate'),
      'README.md': readme,
      'package.json': `{"name":"pkg-prvsurrogate","dependencies":{"\\ud800evil":"1","fastify":"^5.0.0"},"devDependencies":{"vitest":"^4.0.0"},"license":"MIT"}`,
    });
    const id = await listItem(t, seller, { bytes, compression: 'zip' });
    await t.work();
    expect(await sellerStatus(t, seller, id)).toMatchObject({
      status: 'active',
      reason: 'approved',
    });
    const p = (await t.app.inject(`/api/v1/items/${id}/preview`)).json();
    expect(p.manifests).toEqual([
      { path: 'package.json', kind: 'npm', packages: ['fastify', 'vitest'] },
    ]);
    expect(p.readme.excerpt).toBe('# Surrogates\n\nhalf a pair: \ufffd here\nthe rest \ufffd too');
  });

  // found with it: a NUL in an entry name is refused by the name rule, but the finding's file
  // (the raw entry name) could not be stored either, so the refusal itself failed three times
  // and the seller read processing_error instead of the rule and the file
  it('a NUL in an entry name is refused with its rule and file, not processing_error', async () => {
    const seller = newWallet();
    const bytes = zipOf({ ...project('prvnulname'), 'src/a\u0000b.ts': 'export const a = 1;\n' });
    const id = await listItem(t, seller, { bytes, compression: 'zip' });
    await t.work();
    expect(await sellerStatus(t, seller, id)).toEqual({
      status: 'rejected',
      reason: 'safety_checks_failed',
      findings: [{ rule: 'control_character_in_name', kind: 'name', file: 'src/a\\u0000b.ts' }],
    });
  });
});
