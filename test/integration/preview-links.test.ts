import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { listItem, METADATA } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * A seller's README and description reach clients that render Markdown (agents' UIs, MCP hosts):
 * a `javascript:`, `data:` or `vbscript:` link in them is neutralised in the public preview,
 * item detail and search; http(s), mailto and relative links are kept.
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('links in public listing text', () => {
  it('keep only http(s), mailto and relative destinations', async () => {
    const readme = [
      '# Linked project',
      '',
      '[Docs](https://example.com/docs) [Guide](./docs/guide.md) [Mail](mailto:a@example.com)',
      '[Click me](javascript:alert(document.cookie))',
      '![pixel](data:image/svg+xml;base64,PHN2Zz4=)',
      '[ref]: vbscript:msgbox(1)',
    ].join('\n');
    const id = await listItem(t, newWallet(), {
      bytes: zipOf({ ...uniqueProject('mdlinks'), 'README.md': readme }),
      metadata: {
        ...METADATA,
        title: 'Markdown link project',
        description: 'See [the demo](javascript:alert(1)) or [the site](https://example.com).',
      },
    });
    await t.runtime.runDueJobs();
    const preview = await t.app.inject(`/api/v1/items/${id}/preview`);
    expect(preview.statusCode).toBe(200);
    expect(preview.json().readme.excerpt).toBe(
      [
        '# Linked project',
        '',
        '[Docs](https://example.com/docs) [Guide](./docs/guide.md) [Mail](mailto:a@example.com)',
        '[Click me](#)',
        '![pixel](#)',
        '[ref]: #',
      ].join('\n'),
    );
    const expected = 'See [the demo](#) or [the site](https://example.com).';
    const detail = await t.app.inject(`/api/v1/items/${id}`);
    expect(detail.json().metadata.description).toBe(expected);
    const found = await t.app.inject({
      url: '/api/v1/search',
      query: { q: 'Markdown link project' },
    });
    const hit = (found.json() as { id: string; metadata: { description: string } }[]).find(
      (i) => i.id === id,
    );
    expect(hit?.metadata.description).toBe(expected);
  });

  it('drop script links a regex missed: autolinks, definitions in containers, raw HTML', async () => {
    const readme = [
      '# Nested project',
      '',
      '- [a]: javascript:alert(1)',
      '',
      '[a\\]b]: vbscript:msgbox(1)',
      '',
      '[list][a] [label][a\\]b] and `[x](javascript:alert(1))` in code',
    ].join('\n');
    const description = [
      'Try <javascript:alert(1)> or <a href="javascript:alert(2)" onclick="alert(3)">this</a>.',
      '',
      '> [q]: javascript:alert(4)',
      '',
      '[quoted][q], `<a href="javascript:x">` in code, [site](https://example.com)',
    ].join('\n');
    const id = await listItem(t, newWallet(), {
      bytes: zipOf({ ...uniqueProject('mdnested'), 'README.md': readme }),
      metadata: { ...METADATA, title: 'Nested link project', description },
    });
    await t.runtime.runDueJobs();
    const preview = await t.app.inject(`/api/v1/items/${id}/preview`);
    expect(preview.statusCode).toBe(200);
    expect(preview.json().readme.excerpt).toBe(
      [
        '# Nested project',
        '',
        '- [a]: #',
        '',
        '[a\\]b]: #',
        '',
        '[list][a] [label][a\\]b] and `[x](javascript:alert(1))` in code',
      ].join('\n'),
    );
    const expected = [
      'Try # or <a href="#" >this</a>.',
      '',
      '> [q]: #',
      '',
      '[quoted][q], `<a href="javascript:x">` in code, [site](https://example.com)',
    ].join('\n');
    const detail = await t.app.inject(`/api/v1/items/${id}`);
    expect(detail.json().metadata.description).toBe(expected);
    const found = await t.app.inject({
      url: '/api/v1/search',
      query: { q: 'Nested link project' },
    });
    const hit = (found.json() as { id: string; metadata: { description: string } }[]).find(
      (i) => i.id === id,
    );
    expect(hit?.metadata.description).toBe(expected);
  });
});
