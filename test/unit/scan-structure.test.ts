import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkArchiveStructure } from '../../src/domain/listings/archive-structure.js';
import { pathFinding } from '../../src/scan/binaries.js';
import { ownerFindings } from '../../src/scan/findings.js';
import { checkEntryName, collisionKey, NameRegistry } from '../../src/scan/names.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS, ScanRejection } from '../../src/scan/types.js';
import { tarGzOf, uniqueProject, zipOf, type Files } from '../helpers/archives.js';
import {
  patchCentral,
  paxBlock,
  TAR_END,
  tarBlock,
  tarBlocksOf,
  zipWith,
  zipWithMode,
} from '../scan-corpus/build.js';

/** The structural rules of issue 23: links by mode whatever the host, portable names, gzip data. */
const checkOf = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof ScanRejection) return e.findings[0]!.check;
    throw e;
  }
};
const firstCheck = async (bytes: Buffer, c: 'zip' | 'tar.gz' = 'zip') => {
  const out = await scanArchive(bytes, c, DEFAULT_SCAN_LIMITS);
  return out.verdict === 'reject' ? out.findings[0]!.check : 'accept';
};

describe('zip links by mode, whatever the host byte', () => {
  it.each([0, 3, 5, 10, 16, 19, 30])('host %i with a symlink mode is a symlink', async (host) => {
    const zip = zipWithMode(uniqueProject(), {
      name: 'passwd',
      data: '/etc/passwd',
      mode: 0o120777,
      host,
    });
    expect(await firstCheck(zip)).toBe('symlink');
  });

  it('special files by mode on a non-Unix host', async () => {
    const zip = zipWithMode(uniqueProject(), { name: 'p', data: '', mode: 0o010644, host: 16 });
    expect(await firstCheck(zip)).toBe('special_file');
  });

  it('regular modes from any host pass (7-Zip on Windows writes Unix modes with host 0)', async () => {
    const zip = patchCentral(zipWith(uniqueProject()), 'src/index.ts', {
      host: 0,
      external: ((0o100644 << 16) | 0x8020) >>> 0,
    });
    expect(await firstCheck(zip)).toBe('accept');
  });

  it('a zip glued after another file is named for what it is', async () => {
    const zip = Buffer.concat([
      Buffer.from('GIF89a\u0001\u0000\u0001\u0000'),
      zipOf(uniqueProject()),
    ]);
    expect(await firstCheck(zip)).toBe('prepended_data');
  });
});

describe('names every filesystem can hold', () => {
  it.each([
    ['CON', 'reserved_name'],
    ['src/nul.txt', 'reserved_name'],
    ['lib/Aux.js', 'reserved_name'],
    ['COM1.tar.gz', 'reserved_name'],
    ['out/lpt\u00b2', 'reserved_name'],
    ['src/con/index.ts', 'reserved_name'],
    ['NUL .ts', 'reserved_name'],
    ['src/index.ts.', 'trailing_dot_or_space'],
    ['README.md ', 'trailing_dot_or_space'],
    ['lib./a.js', 'trailing_dot_or_space'],
    ['src/a.ts:stream', 'windows_invalid_character'],
    ['run*.sh', 'windows_invalid_character'],
    ['what?.md', 'windows_invalid_character'],
    ['src/\u2025/x', 'path_traversal'],
    ['\uff0e\uff0e\uff0fx', 'path_traversal'],
  ])('%j is refused as %s', (name, check) => {
    expect(checkOf(() => checkEntryName(name, name))).toBe(check);
  });

  it.each([
    'console.ts',
    'src/auxiliary.js',
    'docs/null-safety.md',
    'com10.txt',
    'lpt.c',
    '.env.example',
    'a.b.c',
    '[id].tsx',
    'caf\u00e9.md',
  ])('%j passes', (name) => {
    expect(checkOf(() => checkEntryName(name, name))).toBeUndefined();
  });

  it.each([
    ['src/Util.ts', 'src/util.ts'],
    ['caf\u00e9.ts', 'cafe\u0301.ts'],
    ['\ufb01le.ts', 'file.ts'],
    ['\uff21pi.ts', 'api.ts'],
    ['stra\u00dfe.ts', 'STRASSE.ts'],
  ])('%j and %j collide', (a, b) => {
    expect(collisionKey(a)).toBe(collisionKey(b));
    const names = new NameRegistry();
    names.add(a, 'file', a);
    expect(checkOf(() => names.add(b, 'file', b))).toBe('duplicate_name');
  });
});

describe('a zip hidden behind other bytes', () => {
  // unzip, Python's zipfile and Java read a zip from its end record, so bytes before it (a
  // shebang, a self-extracting stub, an image) do not stop them; sniffed by its first bytes the
  // file was text or binary and its entries went unread
  const key = `-----BEGIN PRIVATE KEY-----\n${randomBytes(600).toString('base64').replace(/.{64}/g, '$&\n')}\n-----END PRIVATE KEY-----\n`;
  const inner = zipOf({ 'id.pem': key });

  it('a file that ends as a zip is refused (prepended_data), whatever its first bytes', async () => {
    for (const head of [
      Buffer.from('#!/usr/bin/env python3\n'), // a zipapp
      Buffer.from('hello world\n'.repeat(100)), // text past the sniffed bytes
      randomBytes(2048), // binary
    ]) {
      const files = { ...uniqueProject(), 'tools/data.bin': Buffer.concat([head, inner]) };
      for (const [bytes, c] of [
        [zipOf(files), 'zip'],
        [await tarGzOf(files), 'tar.gz'],
      ] as const) {
        const out = await scanArchive(bytes, c, DEFAULT_SCAN_LIMITS);
        expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
          check: 'prepended_data',
          file: 'tools/data.bin',
        });
      }
    }
  });

  it('binary data and text that only mention the end record pass', async () => {
    const record = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
    const files = {
      ...uniqueProject(),
      // the record's signature with a comment length that does not reach the end
      'fixtures/blob.bin': Buffer.concat([randomBytes(4096), record, Buffer.alloc(40)]),
      'fixtures/random.bin': randomBytes(70_000),
    };
    expect(await firstCheck(zipOf(files))).toBe('accept');
  });
});

describe('nested gzip files', () => {
  const data = gzipSync(JSON.stringify(Array.from({ length: 200 }, (_, id) => ({ id }))));

  it('a gzip of data is scanned as data, not refused (fixtures/data.json.gz)', async () => {
    const files = { ...uniqueProject(), 'fixtures/data.json.gz': data };
    expect(await firstCheck(zipOf(files))).toBe('accept');
    expect(await firstCheck(await tarGzOf(files), 'tar.gz')).toBe('accept');
  });

  it('the data inside is still inspected: an executable in a .gz is found', async () => {
    const elf = gzipSync(
      Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(600, 7)]),
    );
    const out = await scanArchive(
      zipOf({ ...uniqueProject(), 'bin/tool.gz': elf }),
      'zip',
      DEFAULT_SCAN_LIMITS,
    );
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'executable',
      file: 'bin/tool.gz!/tool',
    });
  });

  it('a gzip of zeros is still a bomb', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024));
    expect(await firstCheck(zipOf({ ...uniqueProject(), 'fixtures/big.json.gz': bomb }))).toBe(
      'compression_ratio',
    );
  });

  it('a gzip of a tar is still opened as an archive', async () => {
    const inner = await tarGzOf({ '../escape.txt': 'x\n' });
    expect(await firstCheck(zipOf({ ...uniqueProject(), 'vendor/lib.tgz': inner }))).toBe(
      'path_traversal',
    );
  });
});

describe('owner findings', () => {
  it('keep rule, kind, file and line; never a detail (error text, another listing, a value)', () => {
    const shown = ownerFindings([
      { check: 'secret', file: '.env', line: 3, detail: 'evm_private_key' },
      { check: 'symlink', file: 'passwd', detail: 'host 5' },
      { check: 'processing_error', detail: 'connect ECONNREFUSED 10.0.0.7:5432' },
      { check: 'near_duplicate', detail: 'similar to active item 6f1c... (estimated 0.93)' },
      { check: 'some_new_rule', file: 'x', detail: 'Error: token=abc def' },
    ]);
    expect(shown).toEqual([
      { rule: 'secret', kind: 'evm_private_key', file: '.env', line: 3 },
      { rule: 'symlink', kind: 'link', file: 'passwd' },
      { rule: 'processing_error', kind: 'processing' },
      { rule: 'near_duplicate', kind: 'duplicate' },
      { rule: 'some_new_rule', kind: 'structure', file: 'x' },
    ]);
  });
});

describe('vendored fixture folders (the jar rule)', () => {
  it.each([
    ['libs/test-fixtures.jar', true],
    ['src/test/resources/fixtures/plugin.jar', true],
    ['vendor/junit.jar', true],
    ['Tests/data.jar', true],
    ['libs/test-fixtures.jar!/com/example/Fixture0.class', true],
    ['build/app.jar', false],
    ['app.jar', false],
    ['tests.jar', false],
    ['dist/plugin.jar!/com/example/Main.class', false],
  ])('%s → allowed: %s', (p, allowed) => {
    // the rule the scan runs (binaries.ts): an allowed jar, or a class inside one, raises nothing
    const finding = pathFinding(p);
    if (allowed) expect(finding).toBeUndefined();
    else expect(finding).toMatchObject({ check: 'bytecode', file: p });
  });
});

describe("the MCP server's pre-check before the fee", () => {
  it('is the same scan: the new structural rules refuse there too', async () => {
    const { precheck } = await import('../../mcp/archive.js');
    const host5 = zipWithMode(uniqueProject(), {
      name: 'x',
      data: '/etc/passwd',
      mode: 0o120777,
      host: 5,
    });
    const reserved = zipOf({ ...uniqueProject(), 'src/aux.ts': 'export const a = 1;\n' });
    for (const [bytes, check] of [
      [host5, 'symlink'],
      [reserved, 'reserved_name'],
    ] as const) {
      const out = await precheck(bytes, 'zip');
      expect(out.verdict === 'reject' && out.findings[0]!.check).toBe(check);
    }
  });
});

/**
 * Found by the s48 scan sweep, with GNU tar itself: `tar --format=pax --sparse` stores a sparse
 * file as `GNUSparseFile.<pid>/<name>` with its real name in a `GNU.sparse.name` pax record, which
 * GNU tar obeys on extraction and tar-stream does not, so any name (a git hook) passed unseen; a
 * global pax header's `path` likewise renames every later entry in GNU tar.
 */
describe('pax records GNU tar obeys', () => {
  const packWithGnuTar = (files: Files, args: string[], sparse?: string) => {
    const dir = mkdtempSync(join(tmpdir(), 's48-pax-'));
    try {
      for (const [name, data] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, 'proj', name)), { recursive: true });
        writeFileSync(join(dir, 'proj', name), data);
      }
      if (sparse) {
        // a hole of 1 MiB, then data: GNU tar stores it as a sparse file
        writeFileSync(join(dir, 'proj', sparse), '');
        truncateSync(join(dir, 'proj', sparse), 1 << 20);
        appendFileSync(join(dir, 'proj', sparse), 'tail\n');
      }
      return execFileSync('tar', ['-czf', '-', ...args, 'proj'], { cwd: dir });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('a sparse file from tar --format=pax --sparse is refused like the GNU format one', async () => {
    const files = uniqueProject();
    const pax = packWithGnuTar(files, ['--format=pax', '--sparse'], 'disk.img');
    const gnu = packWithGnuTar(files, ['--format=gnu', '--sparse'], 'disk.img');
    expect(await firstCheck(pax, 'tar.gz')).toBe('unsupported_entry_type');
    expect(await firstCheck(gnu, 'tar.gz')).toBe('unsupported_entry_type');
    // the same project without the sparse file passes in every format GNU tar writes but v7
    for (const format of ['pax', 'gnu', 'ustar', 'posix', 'oldgnu'])
      expect(await firstCheck(packWithGnuTar(files, [`--format=${format}`]), 'tar.gz')).toBe(
        'accept',
      );
  });

  it('a v7 tar (no format magic) is named as a tar problem, with the way out, never a broken gzip', async () => {
    const v7 = packWithGnuTar(uniqueProject(), ['--format=v7']);
    // nested in a zip: the scan reads the gzip and refuses the tar inside it
    const nested = zipOf({ ...uniqueProject(), 'vendor/old.tar.gz': v7 });
    const out = await scanArchive(nested, 'zip', DEFAULT_SCAN_LIMITS);
    expect(out).toMatchObject({
      verdict: 'reject',
      findings: [
        {
          check: 'malformed_tar',
          file: 'vendor/old.tar.gz',
          detail: expect.stringContaining('tar --format=ustar'),
        },
      ],
    });
    // uploaded as it is: refused before any fee, with the same hint
    await expect(checkArchiveStructure(v7, 'tar.gz')).rejects.toMatchObject({
      code: 'unsupported_archive',
      message: expect.stringContaining('tar --format=ustar'),
    });
  });

  it('a GNU.sparse.name record renaming a file is refused', async () => {
    const bytes = gzipSync(
      Buffer.concat([
        tarBlocksOf(uniqueProject()),
        paxBlock({ 'GNU.sparse.name': '.git/hooks/pre-commit' }),
        tarBlock({ name: 'notes.txt', mode: 0o755 }, '#!/bin/sh\nid\n'),
        TAR_END,
      ]),
    );
    expect(await firstCheck(bytes, 'tar.gz')).toBe('unsupported_entry_type');
  });

  it("a global header's path is refused; git archive's comment is not", async () => {
    const withGlobal = (records: Record<string, string>) =>
      gzipSync(
        Buffer.concat([
          paxBlock(records, 'g'),
          tarBlocksOf(uniqueProject()),
          tarBlock({ name: 'notes.txt' }, 'notes\n'),
          TAR_END,
        ]),
      );
    expect(await firstCheck(withGlobal({ path: '.git/hooks/pre-push' }), 'tar.gz')).toBe(
      'unsupported_entry_type',
    );
    expect(await firstCheck(withGlobal({ size: '3' }), 'tar.gz')).toBe('unsupported_entry_type');
    expect(
      await firstCheck(
        withGlobal({ comment: '7b0fe76e61a0dec97e6f6e608f062b34a45aaaaa' }),
        'tar.gz',
      ),
    ).toBe('accept');
  });
});
