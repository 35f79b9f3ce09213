import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { demoArchive } from '../../src/domain/discovery/demo.js';
import { DEMO_LISTINGS } from '../../src/domain/discovery/demo-listings.js';
import { readFileSync } from 'node:fs';
import { buildLanguageMap } from '../../tools/scan/language-map.js';
import { LANGUAGE_MAP_FILE, languageOf } from '../../src/scan/languages.js';
import { identifyLicence } from '../../src/scan/licences.js';
import { parseManifest } from '../../src/scan/manifests.js';
import { PREVIEW_LIMITS, PreviewCollector, type Preview } from '../../src/scan/preview.js';
import { readmeExcerpt } from '../../src/scan/preview-text.js';
import { scanArchive, type Compression } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { buildZip, tarGzOf, uniqueProject, zipOf, type Files } from '../helpers/archives.js';
import { CORPUS } from '../scan-corpus/index.js';

/**
 * The buyer's preview (issue 29, src/scan/preview.ts) as the scan computes it: right on ordinary
 * projects, bounded on hostile ones, and never a reason for a scan to fail.
 */
async function previewOf(
  bytes: Buffer,
  compression: Compression = 'zip',
  limits = DEFAULT_SCAN_LIMITS,
): Promise<{ preview: Preview | undefined; verdict: string; collector: PreviewCollector }> {
  const collector = new PreviewCollector();
  const out = await scanArchive(bytes, compression, limits, undefined, collector);
  return { preview: collector.result(), verdict: out.verdict, collector };
}

const spdx = (id: string) =>
  (
    createRequire(import.meta.url)(`spdx-license-list/licenses/${id}.json`) as {
      licenseText: string;
    }
  ).licenseText;

describe('language map', () => {
  it('is the one the installed linguist-languages gives (npx tsx tools/scan/language-map.ts)', () => {
    expect(JSON.parse(readFileSync(LANGUAGE_MAP_FILE, 'utf8'))).toEqual(buildLanguageMap());
  });

  it('names the common language of ambiguous extensions, and exact file names', () => {
    const name = (p: string) => languageOf(p)?.name;
    expect(name('src/a.ts')).toBe('TypeScript');
    expect(name('include/x.h')).toBe('C');
    expect(name('README.md')).toBe('Markdown');
    expect(name('lib/x.pl')).toBe('Perl');
    expect(name('Dockerfile')).toBe('Dockerfile');
    expect(name('Makefile')).toBe('Makefile');
    expect(name('types/index.d.ts')).toBe('TypeScript');
    expect(name('x.unknown-ext')).toBeUndefined();
  });
});

describe('licence detection', () => {
  it.each([
    ['MIT', 'MIT'],
    ['Apache-2.0', 'Apache-2.0'],
    ['BSD-3-Clause', 'BSD-3-Clause'],
    ['BSD-2-Clause', 'BSD-2-Clause'],
    ['GPL-3.0-only', 'GPL-3.0-only'],
    ['ISC', 'ISC'],
    ['MPL-2.0', 'MPL-2.0'],
    ['Unlicense', 'Unlicense'],
  ])('recognises the %s text', (id, expected) => {
    expect(identifyLicence(spdx(id))).toBe(expected);
  });

  it('reads a licence re-wrapped, with a real copyright line and British spelling', () => {
    const text = spdx('MIT')
      .replace('Copyright (c) <year> <copyright holders>', 'Copyright (c) 2024-2026 Jane Doe')
      .replace(/\n/g, ' ')
      .replace(/ {2,}/g, ' ')
      .replace(/license/g, 'licence');
    expect(identifyLicence(text)).toBe('MIT');
  });

  it('says NOASSERTION for a licence it does not know, and takes an SPDX tag as written', () => {
    expect(identifyLicence('Sold under the marketplace buyer licence v1.\n')).toBe('NOASSERTION');
    expect(identifyLicence('SPDX-License-Identifier: MIT OR Apache-2.0\n')).toBe(
      'MIT OR Apache-2.0',
    );
    expect(identifyLicence('MIT License\n\nCopyright (c) 2025 Someone\n')).toBe('MIT');
  });

  it('finds licence files in every usual spelling, dual licences as an OR expression', async () => {
    for (const name of ['LICENSE', 'LICENCE.md', 'license.txt', 'COPYING', 'License-MIT']) {
      const { preview } = await previewOf(zipOf({ ...uniqueProject(), [name]: spdx('MIT') }));
      expect(preview!.license, name).toEqual({ spdx: 'MIT', file: name });
    }
    const dual = await previewOf(
      zipOf({
        ...uniqueProject(),
        'LICENSE-APACHE': spdx('Apache-2.0'),
        'LICENSE-MIT': spdx('MIT'),
      }),
    );
    expect(dual.preview!.license).toEqual({ spdx: 'Apache-2.0 OR MIT', file: 'LICENSE-APACHE' });
    const none = await previewOf(zipOf(uniqueProject()));
    expect(none.preview!.license).toEqual({ spdx: 'none', file: null });
    // a manifest's declared licence when there is no licence file
    const declared = await previewOf(
      zipOf({ ...uniqueProject(), 'package.json': '{"name":"x","license":"ISC"}' }),
    );
    expect(declared.preview!.license).toEqual({ spdx: 'ISC', file: 'package.json' });
  });
});

describe('manifests', () => {
  it('reads the package names each ecosystem declares', () => {
    expect(
      parseManifest(
        'pyproject',
        '[project]\nname="x"\ndependencies=["requests[socks]>=2", "numpy; python_version>\'3.8\'"]\n[project.optional-dependencies]\ntest=["pytest>=8"]\n',
      ).packages,
    ).toEqual(['requests', 'numpy', 'pytest']);
    expect(
      parseManifest(
        'cargo',
        '[package]\nname="x"\nlicense="MIT OR Apache-2.0"\n[dependencies]\nserde={version="1"}\n[dev-dependencies]\nproptest="1"\n[target.\'cfg(unix)\'.dependencies]\nlibc="0.2"\n',
      ),
    ).toEqual({ packages: ['serde', 'proptest', 'libc'], license: 'MIT OR Apache-2.0' });
    expect(
      parseManifest(
        'go',
        'module x\n\nrequire github.com/a/b v1.0.0\nrequire (\n\tgithub.com/c/d v1.2.0\n\tgithub.com/e/f v0.1.0 // indirect\n)\n',
      ).packages,
    ).toEqual(['github.com/a/b', 'github.com/c/d']);
    expect(
      parseManifest('pip', '# deps\nflask==3.0\n-r base.txt\nrequests>=2 # http\n\n').packages,
    ).toEqual(['flask', 'requests']);
    expect(
      parseManifest(
        'bundler',
        "source 'https://rubygems.org'\ngem 'rails', '~> 7'\ngem \"rspec\"\n",
      ).packages,
    ).toEqual(['rails', 'rspec']);
    expect(
      parseManifest(
        'maven',
        '<project><dependencies><dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId></dependency></dependencies></project>',
      ).packages,
    ).toEqual(['org.junit.jupiter:junit-jupiter']);
    expect(
      parseManifest(
        'gradle',
        'dependencies {\n  implementation("com.squareup.okhttp3:okhttp:4.12.0")\n  testImplementation \'junit:junit:4.13\'\n}\n',
      ).packages,
    ).toEqual(['com.squareup.okhttp3:okhttp', 'junit:junit']);
    expect(
      parseManifest('composer', '{"require":{"php":">=8","monolog/monolog":"^3"}}').packages,
    ).toEqual(['monolog/monolog']);
    // broken manifests declare nothing (and never throw)
    expect(parseManifest('npm', '{ not json').packages).toEqual([]);
    expect(parseManifest('cargo', '[[[').packages).toEqual([]);
  });

  it('lists nested manifests, leaves vendored ones out, and bounds their count', async () => {
    const files: Files = { ...uniqueProject() };
    for (let i = 0; i < 70; i++)
      files[`packages/p${i}/package.json`] = JSON.stringify({ dependencies: { [`dep${i}`]: '1' } });
    files['node_modules/left-pad/package.json'] = '{"dependencies":{"evil":"1"}}';
    files['api/go.mod'] = 'module api\n\nrequire github.com/x/y v1.0.0\n';
    const { preview } = await previewOf(zipOf(files));
    const paths = preview!.manifests.map((m) => m.path);
    expect(paths).toHaveLength(PREVIEW_LIMITS.manifests);
    expect(paths[0]).toBe('package.json');
    // the shallowest first: the root's and a first-level folder's come before the 70 deeper ones
    expect(paths[1]).toBe('api/go.mod');
    expect(paths.some((p) => p.startsWith('node_modules/'))).toBe(false);
  });
});

describe('hostile archives: bounded, and the scan verdict unchanged', () => {
  it(
    '30,000 files: tree capped at 500 with the total, languages counted over all',
    { timeout: 120_000 },
    async () => {
      const entries = Array.from({ length: 30_000 }, (_, i) => ({
        name: `src/m${Math.floor(i / 500)}/f${i}.py`,
        data: `def f${i}(x):\n    return x * ${i} + ${i % 7}\n`,
      }));
      const limits = { ...DEFAULT_SCAN_LIMITS, maxEntries: 40_000 };
      const { preview, verdict } = await previewOf(
        buildZip([...entries, { name: 'README.md', data: '# many\n' }]),
        'zip',
        limits,
      );
      expect(verdict).toBe('accept');
      expect(preview!.files).toBe(30_001);
      expect(preview!.tree).toMatchObject({ total: 30_001, truncated: true });
      expect(preview!.tree.entries).toHaveLength(PREVIEW_LIMITS.treeEntries);
      // the shallowest first: the README is in, sorted by path
      expect(preview!.tree.entries.map((e) => e.path)).toContain('README.md');
      expect(preview!.languages).toEqual([{ name: 'Python', lines: 60_000, files: 30_000 }]);
      expect(JSON.stringify(preview).length).toBeLessThan(64 * 1024);
    },
  );

  it('a huge README: the excerpt stays within 40 lines and 4 KB', async () => {
    const long = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${'<&>'.repeat(10)}`);
    const { preview, verdict } = await previewOf(
      zipOf({ ...uniqueProject(), 'README.md': long.join('\n') }),
    );
    expect(verdict).toBe('accept');
    const r = preview!.readme!;
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.excerpt)).toBeLessThanOrEqual(PREVIEW_LIMITS.readmeBytes);
    expect(r.excerpt.split('\n').length).toBeLessThanOrEqual(PREVIEW_LIMITS.readmeLines);
    expect(r.excerpt).not.toMatch(/[<>]/);
    // one enormous line: cut, never longer than the bound
    const oneLine = await previewOf(
      zipOf({ ...uniqueProject(), 'README.md': randomBytes(600_000).toString('base64url') }),
    );
    expect(oneLine.verdict).toBe('accept');
    expect(Buffer.byteLength(oneLine.preview!.readme!.excerpt)).toBeLessThanOrEqual(4096);
  });

  it('a README line holding an encoded private key is shown redacted, as the scan reads it', () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj'}\n-----END PRIVATE KEY-----\n`;
    const escaped = [...Buffer.from(pem)]
      .map((b) => `\\x${b.toString(16).padStart(2, '0')}`)
      .join('');
    const text = `# Keys\nkey = b"${escaped}"\nhex ${Buffer.from(pem).toString('hex')}\nurl ${encodeURIComponent(pem)}\nok\n`;
    const r = readmeExcerpt(
      {
        path: 'README.md',
        what: 'readme',
        kind: 'text',
        bytes: Buffer.from(text),
        truncated: false,
      },
      PREVIEW_LIMITS,
    );
    expect(r!.excerpt).toBe('# Keys\n[redacted]\n[redacted]\n[redacted]\nok');
  });

  it('a binary README has no excerpt; control and bidi characters are dropped', async () => {
    const binary = Buffer.alloc(8192);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919) % 256;
    const bin = await previewOf(zipOf({ ...uniqueProject(), 'README.md': binary }));
    expect(bin.verdict).toBe('accept');
    expect(bin.preview!.readme).toBeNull();
    const ctl = await previewOf(
      zipOf({ ...uniqueProject(), 'README.md': '# T\u0007itle\u202e\u001b[31m\nok\n' }),
    );
    expect(ctl.preview!.readme!.excerpt).toBe('# Title[31m\nok');
  });

  it('a file name with a bidi override or an invisible character is shown with it spelled out', async () => {
    // "invoice\u202egpj.ts" reads as "invoicest.jpg": the tree must not show what is not there
    const { verdict, preview } = await previewOf(
      zipOf({
        ...uniqueProject(),
        'src/invoice\u202egpj.ts': 'export const a = 1;\n',
        'src/\u2066x\u2069\u200b.ts': 'export const b = 2;\n',
        'LICENSE\u200d': spdx('MIT'),
      }),
    );
    expect(verdict).toBe('accept');
    const paths = preview!.tree.entries.map((e) => e.path);
    expect(paths).toContain('src/invoice\\u202egpj.ts');
    expect(paths).toContain('src/\\u2066x\\u2069\\u200b.ts');
    const shown = JSON.stringify(preview);
    expect(shown).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/);
  });

  it('UTF-16 and wrapped-folder READMEs are read; the top-level one wins', async () => {
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('# Wide readme\nhello\n', 'utf16le'),
    ]);
    const { preview } = await previewOf(
      await tarGzOf({
        'proj/README.md': utf16,
        'proj/docs/README.md': '# not this one\n',
        ...Object.fromEntries(
          Object.entries(uniqueProject()).map(([k, v]) => [`proj/src/${k}`, v]),
        ),
      }),
      'tar.gz',
    );
    expect(preview!.readme).toEqual({
      path: 'proj/README.md',
      excerpt: '# Wide readme\nhello',
      truncated: false,
    });
  });

  it('a collector that fails leaves the preview absent with its reason, the verdict unchanged', async () => {
    const collector = new PreviewCollector();
    // a file whose bookkeeping throws (as an unforeseen bug would)
    (collector as unknown as { file: () => void }).file = () => {
      throw new Error('boom');
    };
    const out = await scanArchive(
      zipOf(uniqueProject()),
      'zip',
      DEFAULT_SCAN_LIMITS,
      undefined,
      collector,
    );
    expect(out.verdict).toBe('accept');
    expect(collector.result()).toBeUndefined();
    expect(collector.failure).toBe('boom');
  });
});

describe('right on real projects', () => {
  it('every demo listing: its stack language first, its manifest, its README', async () => {
    for (const listing of DEMO_LISTINGS) {
      const { preview } = await previewOf(await demoArchive(listing), 'tar.gz');
      const p = preview!;
      expect(p.files, listing.title).toBeGreaterThan(2);
      // the demo's LICENSE is the marketplace's own buyer licence: a licence, not an SPDX one
      expect(p.license.spdx, listing.title).toBe('NOASSERTION');
      expect(p.readme!.excerpt.startsWith(`# ${listing.title}`), listing.title).toBe(true);
      const top = p.languages[0]!.name;
      const stack = listing.techStack.toLowerCase();
      const named =
        stack.includes(top.toLowerCase()) ||
        (top === 'JavaScript' && stack.includes('node')) ||
        (top === 'HCL' && stack.includes('terraform')) ||
        (top === 'Shell' && stack.includes('github actions'));
      expect(named, `${listing.title}: ${top} vs ${listing.techStack}`).toBe(true);
    }
  });

  it('the scan corpus benign projects: licence, languages and manifests as the archives hold', async () => {
    const stackLanguage: Record<string, string> = {
      node: 'JavaScript',
      python: 'Python',
      go: 'Go',
      rust: 'Rust',
      java: 'Java',
      ruby: 'Ruby',
      php: 'PHP',
      csharp: 'C#',
      cpp: 'C++',
    };
    const manifestOf: Record<string, string | undefined> = {
      node: 'package.json',
      python: 'pyproject.toml',
      go: 'go.mod',
      rust: 'Cargo.toml',
      java: 'pom.xml',
      ruby: 'Gemfile',
      php: 'composer.json',
    };
    const generated = CORPUS.filter((c) => !c.hostile && /^benign-[a-z]+$/.test(c.family));
    expect(generated.length).toBeGreaterThan(30);
    for (const c of generated) {
      const stack = c.family.slice('benign-'.length);
      if (!stackLanguage[stack]) continue;
      const { preview } = await previewOf(await c.build(), c.compression);
      const p = preview!;
      // the generated LICENSE reads "MIT License" and a copyright line
      expect(p.license.spdx, c.name).toBe('MIT');
      expect(p.license.file!.endsWith('LICENSE'), c.name).toBe(true);
      expect(p.languages[0]!.name, c.name).toBe(stackLanguage[stack]);
      const manifest = manifestOf[stack];
      if (manifest)
        expect(
          p.manifests.some((m) => m.path.endsWith(manifest)),
          c.name,
        ).toBe(true);
    }
  });
});
