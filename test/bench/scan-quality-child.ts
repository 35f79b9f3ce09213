import { readFile } from 'node:fs/promises';
import { scanArchive } from '../../src/scan/scan-archive.js';
import type { Compression } from '../../src/scan/scan-archive.js';
import { BENCH_LIMITS } from './scan.js';

/**
 * Child of the scan_quality bench: scans every archive listed on stdin (`[[file, compression]]`)
 * one after the other, as one worker process would, and reports the highest RSS sampled every
 * 5 ms and the process's lifetime peak.
 */
const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
const files = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Array<[string, Compression]>;
const mb = (n: number) => Math.round(n / 1024 / 1024);
const before = process.memoryUsage.rss();
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 5);
let refused = 0;
for (const [file, compression] of files) {
  const out = await scanArchive(await readFile(file), compression, BENCH_LIMITS);
  if (out.verdict === 'reject') refused++;
  peak = Math.max(peak, process.memoryUsage.rss());
}
clearInterval(sampler);
console.log(
  JSON.stringify({
    archives: files.length,
    refused,
    rss_before_mb: mb(before),
    rss_peak_mb: mb(peak),
    process_max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  }),
);
