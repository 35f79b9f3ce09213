import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { uniqueProject } from '../helpers/archives.js';

/**
 * Found by the s48 scan sweep: a local header whose sizes are 0xFFFFFFFF gives them in its zip64
 * extra field, and those were never compared with the central record, so a stored entry could
 * tell a streaming extractor (which reads lengths from local headers) another length than the
 * directory. Python's zipfile writes exactly this layout with force_zip64, so the benign archive
 * comes from it and the hostile one is the same archive with the local field changed.
 */
function pythonZip64(): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'zip64-local-'));
  const file = path.join(dir, 'a.zip');
  try {
    const files = Object.entries(uniqueProject()).map(([n, d]) => [n, String(d)]);
    execFileSync(
      'python3',
      [
        '-c',
        `import json,sys,zipfile
z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED)
for n, d in json.loads(sys.stdin.read()):
    with z.open(n, 'w', force_zip64=True) as w: w.write(d.encode())
z.close()`,
        file,
      ],
      { input: JSON.stringify(files) },
    );
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const verdictOf = async (zip: Buffer) => {
  const out = await scanArchive(zip, 'zip', DEFAULT_SCAN_LIMITS);
  return out.verdict === 'accept' ? 'accept' : out.findings[0]!.check;
};

describe('local zip64 extra fields', () => {
  it("python's force_zip64 archive passes; its local zip64 sizes changed are a header mismatch", async () => {
    const zip = pythonZip64();
    expect(zip.readUInt32LE(18)).toBe(0xffffffff); // the first local header defers to zip64
    expect(await verdictOf(zip)).toBe('accept');
    const nameLen = zip.readUInt16LE(26);
    const extra = 30 + nameLen;
    expect(zip.readUInt16LE(extra)).toBe(1); // the zip64 extra field comes first
    for (const at of [extra + 4, extra + 12]) {
      const lying = Buffer.from(zip);
      lying.writeBigUInt64LE(lying.readBigUInt64LE(at) + 512n, at);
      expect(await verdictOf(lying)).toBe('local_header_mismatch');
    }
  });
});
