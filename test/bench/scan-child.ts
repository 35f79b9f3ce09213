import { readFile } from 'node:fs/promises';
import { PreviewCollector } from '../../src/scan/preview.js';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { BENCH_LIMITS } from './scan.js';

/**
 * Child of the scan bench: scans one archive and reports its resident memory: the RSS just before
 * the scan, the highest RSS sampled every 5 ms during it, and the process's lifetime peak.
 */
const [file, mode] = process.argv.slice(2);
const bytes = await readFile(file!);
const mb = (n: number) => Math.round(n / 1024 / 1024);
const limits =
  mode === 'raised'
    ? { ...BENCH_LIMITS, maxExtractedBytes: 2 * 1024 ** 3, maxRatio: 1e9 }
    : BENCH_LIMITS;
const before = process.memoryUsage.rss();
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 5);
const t0 = performance.now();
const out = await scanArchive(bytes, 'zip', limits, undefined, new PreviewCollector());
const ms = performance.now() - t0;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage.rss());
console.log(
  JSON.stringify({
    archive_kb: Math.round(bytes.length / 1024),
    verdict: out.verdict === 'reject' ? `${out.reason}/${out.findings[0]?.check}` : 'accept',
    inflated_mb: mb(out.stats.extractedBytes),
    ms: Math.round(ms),
    rss_before_mb: mb(before),
    rss_peak_during_scan_mb: mb(peak),
    process_max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
