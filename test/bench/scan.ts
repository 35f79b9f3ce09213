import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDeflateRaw, crc32, deflateRawSync } from 'node:zlib';
import { loadConfig } from '../../src/config.js';
import { PreviewCollector } from '../../src/scan/preview.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { scanLimits } from '../../src/domain/scan/scan-job.js';
import type { ScanLimits } from '../../src/scan/types.js';
import { buildZip } from '../helpers/archives.js';

/**
 * Scan benchmark (`npm run bench -- scan`):
 * 1. a 10 MB zip with 2,000 source-like files: our full scan (structure cross-checks, inflate, CRC,
 *    secrets, line hashing, the buyer's preview) against `unzip -t` (inflate + CRC only) on the same file, same run;
 *    goal ours ≤ 1.2× theirs (wall), CPU times reported beside;
 * 2. peak RSS of a child process scanning a zip bomb that declares 1 GB: refused from its headers,
 *    lying about its size (cut off at the declared size), and with limits raised so that the whole
 *    GB is inflated and counted (streaming memory bound).
 */
/** The deployed defaults. */
export const BENCH_LIMITS: ScanLimits = scanLimits(loadConfig({}));

/** Deterministic PRNG so every run scans the same bytes. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const WORDS =
  'user order item price total count index value result config handler request response cache token queue worker stream buffer parse render update delete create fetch store load save apply merge filter reduce'.split(
    ' ',
  );

function sourceFile(rand: () => number, targetBytes: number): string {
  const pick = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const id = () => `${pick()}${Math.floor(rand() * 1e6).toString(36)}`;
  const lines: string[] = [];
  let size = 0;
  while (size < targetBytes) {
    const r = rand();
    const line =
      r < 0.15
        ? `export function ${id()}(${id()}: number, ${id()}: string): ${pick()} {`
        : r < 0.3
          ? `  const ${id()} = await ${id()}.${pick()}(${Math.floor(rand() * 1e5)}, '${id()}');`
          : r < 0.45
            ? `  if (${id()} > ${Math.floor(rand() * 1e4)}) return ${id()}(${id()}, ${id()});`
            : r < 0.55
              ? '}'
              : r < 0.65
                ? `  // ${pick()} the ${pick()} before ${pick()} (${id()})`
                : `  ${id()}.${pick()} = ${id()}[${Math.floor(rand() * 100)}] ?? ${Math.floor(rand() * 1e9)};`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

/** About `targetZipBytes` of zip with `files` entries (calibrated once, then rebuilt). */
export function buildBenchZip(files: number, targetZipBytes: number): Buffer {
  const build = (perFile: number) => {
    const rand = prng(42);
    return buildZip(
      Array.from({ length: files }, (_, i) => ({
        name: `src/module${Math.floor(i / 100)}/file${i}.ts`,
        data: sourceFile(rand, perFile),
      })),
    );
  };
  const sample = sourceFile(prng(7), 16 * 1024);
  let perFile = Math.round(
    targetZipBytes / files / (deflateRawSync(sample).length / sample.length),
  );
  const first = build(perFile);
  perFile = Math.round(perFile * (targetZipBytes / first.length));
  return build(perFile);
}

function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  return fn().then((r) => [r, performance.now() - t0]);
}

/**
 * CPU time (ms) of this process's reaped children (Linux `/proc/self/stat` cutime + cstime, 10 ms
 * ticks): what `unzip -t` spent, immune to waiting for a core on a loaded machine.
 */
function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[13]) + Number(f[14])) * 1000) / 100; // fields 16, 17; USER_HZ = 100
  } catch {
    return undefined;
  }
}

async function bombZip(declared: 'honest' | 'lying'): Promise<Buffer> {
  const GB = 1024 ** 3;
  const chunk = Buffer.alloc(1024 * 1024);
  const deflate = createDeflateRaw({ level: 1 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  let crc = 0;
  for (let i = 0; i < GB / chunk.length; i++) {
    crc = crc32(chunk, crc);
    if (!deflate.write(chunk)) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await ended;
  const compressed = Buffer.concat(out);
  const usize = declared === 'honest' ? GB : 1000;
  return buildZip([
    { name: 'README.md', data: '# bomb\n' },
    { name: 'zeros.bin', compressed, method: 8, central: { usize, crc }, local: { usize, crc } },
  ]);
}

function childRss(file: string, mode: string): Record<string, unknown> {
  const child = fileURLToPath(new URL('./scan-child.ts', import.meta.url));
  const res = spawnSync(process.execPath, ['--import', 'tsx', child, file, mode], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (res.status !== 0) return { error: res.stderr.slice(-500) };
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

export async function benchScan(): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-scan-'));
  try {
    const zip = buildBenchZip(2000, 10 * 1024 * 1024);
    const file = path.join(dir, 'bench.zip');
    await writeFile(file, zip);
    console.log(`zip: ${(zip.length / 1024 / 1024).toFixed(2)} MB, 2000 files`);

    // Interleaved, after a warm-up, so that machine load hits both sides alike.
    const ours: number[] = [];
    const theirs: number[] = [];
    const oursCpu: number[] = [];
    const theirsCpu: number[] = [];
    let outcome = '';
    let unzip: string | undefined;
    // as the scan job runs it: with the buyer's preview gathered in the same pass (issue 29)
    const scan = async () => {
      const preview = new PreviewCollector();
      const out = await scanArchive(await readFile(file), 'zip', BENCH_LIMITS, undefined, preview);
      if (out.verdict === 'accept' && !preview.result()) throw new Error(preview.failure);
      return out;
    };
    await scan();
    for (let i = 0; i < 7; i++) {
      const cpu = process.cpuUsage();
      const [out, ms] = await time(scan);
      const used = process.cpuUsage(cpu);
      ours.push(ms);
      oursCpu.push((used.user + used.system) / 1000);
      outcome =
        out.verdict === 'accept'
          ? `accept (${(out.stats.extractedBytes / 1024 / 1024).toFixed(1)} MB inflated)`
          : `reject ${JSON.stringify(out)}`;
      if (unzip) continue;
      const c0 = childrenCpuMs();
      const t0 = performance.now();
      const r = spawnSync('unzip', ['-tqq', file]);
      const took = performance.now() - t0;
      const c1 = childrenCpuMs();
      if (c0 !== undefined && c1 !== undefined && !r.error && r.status === 0)
        theirsCpu.push(c1 - c0);
      if (r.error || r.status !== 0)
        unzip = r.error
          ? 'unzip not installed: comparison skipped'
          : `unzip -t failed (${r.status})`;
      else theirs.push(took);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const oursMs = median(ours);
    const theirsMs = theirs.length ? median(theirs) : undefined;
    const ratio = theirsMs ? oursMs / theirsMs : undefined;
    console.log(
      `our scan:  median ${oursMs.toFixed(0)} ms, best ${Math.min(...ours).toFixed(0)} ms (${outcome})`,
    );
    console.log(
      unzip ??
        `unzip -t:  median ${theirsMs!.toFixed(0)} ms, best ${Math.min(...theirs).toFixed(0)} ms`,
    );
    if (ratio)
      console.log(
        `ratio ours/unzip: ${ratio.toFixed(2)}× wall (goal ≤ 1.2×) ${ratio <= 1.2 ? 'MET' : 'NOT MET'}`,
      );
    const cpuRatio = theirsCpu.length ? median(oursCpu) / median(theirsCpu) : undefined;
    if (cpuRatio)
      console.log(
        `CPU: ours ${median(oursCpu).toFixed(0)} ms, unzip -t ${median(theirsCpu).toFixed(0)} ms: ${cpuRatio.toFixed(2)}× (the wall ratio hides the difference on a loaded machine)`,
      );

    const rss: Record<string, unknown> = {};
    for (const kind of ['honest', 'lying'] as const) {
      const bomb = await bombZip(kind);
      const bombFile = path.join(dir, `bomb-${kind}.zip`);
      await writeFile(bombFile, bomb);
      rss[
        `declares_1gb_${kind === 'honest' ? 'refused_from_headers' : 'lying_cut_at_declared_size'}`
      ] = childRss(bombFile, 'default');
      if (kind === 'honest')
        rss.declares_1gb_inflated_fully_with_limits_raised = childRss(bombFile, 'raised');
    }
    for (const [k, v] of Object.entries(rss)) console.log(`bomb ${k}: ${JSON.stringify(v)}`);
    return {
      zip_mb: +(zip.length / 1024 / 1024).toFixed(2),
      inflated: outcome,
      files: 2000,
      ours_ms: +oursMs.toFixed(1),
      unzip_t_ms: theirsMs !== undefined ? +theirsMs.toFixed(1) : unzip,
      ratio: ratio !== undefined ? +ratio.toFixed(2) : undefined,
      goal: '<= 1.2 (wall)',
      goal_met: ratio !== undefined ? ratio <= 1.2 : undefined,
      cpu_ms: {
        ours: +median(oursCpu).toFixed(1),
        unzip_t: theirsCpu.length ? median(theirsCpu) : undefined,
      },
      cpu_ratio: cpuRatio !== undefined ? +cpuRatio.toFixed(2) : undefined,
      bomb_peak_rss: rss,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
