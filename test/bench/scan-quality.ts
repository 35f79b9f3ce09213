import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { CORPUS } from '../scan-corpus/index.js';
import { BENCH_LIMITS } from './scan.js';

/**
 * `npm run bench -- scan_quality`: the labelled corpus (test/scan-corpus) through the scan with the
 * deployed limits. Prints caught/total per hostile family, false positives per benign family, the
 * misses and false positives by name, and the peak RSS of a child process that scans every
 * archive of the corpus one after the other (bombs included; goal under 300 MB).
 */
export interface CaseResult {
  name: string;
  family: string;
  hostile: boolean;
  refused: boolean;
  check?: string;
  reason?: string;
}

export async function runCorpus(): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  for (const c of CORPUS) {
    const bytes = await c.build();
    const res = await scanArchive(bytes, c.compression, BENCH_LIMITS);
    out.push({
      name: c.name,
      family: c.family,
      hostile: c.hostile,
      refused: res.verdict === 'reject',
      ...(res.verdict === 'reject' && { check: res.findings[0]?.check, reason: res.reason }),
    });
  }
  return out;
}

export function qualityTable(results: CaseResult[]): {
  rows: Array<Record<string, string | number>>;
  misses: string[];
  falsePositives: string[];
} {
  const families = [...new Set(results.map((r) => r.family))];
  const rows = families.map((family): Record<string, string | number> => {
    const of = results.filter((r) => r.family === family);
    const hostile = of[0]!.hostile;
    const refused = of.filter((r) => r.refused).length;
    return hostile
      ? { family, kind: 'hostile', caught: `${refused}/${of.length}` }
      : { family, kind: 'benign', false_positives: `${refused}/${of.length}` };
  });
  const misses = results.filter((r) => r.hostile && !r.refused).map((r) => r.name);
  const falsePositives = results
    .filter((r) => !r.hostile && r.refused)
    .map((r) => `${r.name} (${r.reason}/${r.check})`);
  return { rows, misses, falsePositives };
}

function childPeak(dir: string, files: Array<[string, string]>): Record<string, unknown> {
  const child = fileURLToPath(new URL('./scan-quality-child.ts', import.meta.url));
  void dir;
  const res = spawnSync(process.execPath, ['--import', 'tsx', child], {
    encoding: 'utf8',
    timeout: 600_000,
    input: JSON.stringify(files),
  });
  if (res.status !== 0) return { error: res.stderr.slice(-800) };
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

export async function benchScanQuality(): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  const results = await runCorpus();
  const ms = performance.now() - t0;
  const { rows, misses, falsePositives } = qualityTable(results);
  const hostile = results.filter((r) => r.hostile);
  const benign = results.filter((r) => !r.hostile);
  console.table(rows);
  console.log(
    `hostile caught ${hostile.filter((r) => r.refused).length}/${hostile.length}; benign refused ${benign.filter((r) => r.refused).length}/${benign.length}; corpus scanned in ${Math.round(ms)} ms`,
  );
  console.log(misses.length ? `misses:\n  ${misses.join('\n  ')}` : 'misses: none');
  console.log(
    falsePositives.length
      ? `false positives:\n  ${falsePositives.join('\n  ')}`
      : 'false positives: none',
  );
  // Peak memory: a child scans every archive of the corpus in turn, as one worker would.
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-scan-quality-'));
  let memory: Record<string, unknown>;
  try {
    const files: Array<[string, string]> = [];
    for (const [i, c] of CORPUS.entries()) {
      const file = path.join(dir, `${i}.bin`);
      await writeFile(file, await c.build());
      files.push([file, c.compression]);
    }
    memory = childPeak(dir, files);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `peak RSS scanning the whole corpus in one process: ${String(memory.rss_peak_mb)} MB (goal < 300 MB) ${Number(memory.rss_peak_mb) < 300 ? 'MET' : 'NOT MET'}`,
  );
  return {
    cases: results.length,
    hostile_caught: `${hostile.filter((r) => r.refused).length}/${hostile.length}`,
    benign_refused: `${benign.filter((r) => r.refused).length}/${benign.length}`,
    families: rows,
    misses,
    false_positives: falsePositives,
    corpus_ms: Math.round(ms),
    memory,
  };
}
