/**
 * `npm run bench`: every benchmark in one run on this machine, reported as ratios against a
 * baseline measured in the same run. Pick some with `npm run bench -- search payments scan`.
 */
const wanted = new Set(process.argv.slice(2));
const all = !wanted.size;
const report: Record<string, unknown> = { node: process.version, when: new Date().toISOString() };

type Suite = () => Promise<Record<string, unknown>>;
// imported by name at run time, so a suite still being written does not break the others
const load = async (file: string, fn: string): Promise<Suite> =>
  ((await import(file)) as Record<string, Suite>)[fn]!;
const suites: Array<[string, Suite]> = [
  ['search', async () => (await import('./search.js')).benchSearch(process.env)],
  ['relevance', async () => (await import('./relevance.js')).benchRelevance(process.env)],
  ['relevance_tune', async () => (await import('./relevance-tune.js')).benchRelevanceTune()],
  ['payments', async () => (await load('./payments-served.js', 'benchPaymentsServed'))()],
  ['payments_in_process', async () => (await load('./payments.js', 'benchPayments'))()],
  ['scan', async () => (await load('./scan.js', 'benchScan'))()],
  ['scan_quality', async () => (await load('./scan-quality.js', 'benchScanQuality'))()],
  ['search_route', async () => (await import('./search-route.js')).benchSearchRoute(process.env)],
  ['memory', async () => (await import('./search-route.js')).benchMemory(process.env)],
  ['memory_flags', async () => (await import('./memory-flags.js')).benchMemoryFlags()],
  ['idle_variants', async () => (await load('./idle-variants.js', 'benchIdleVariants'))()],
  ['mcp', async () => (await load('./mcp.js', 'benchMcp'))()],
  ['load', async () => (await load('./load.js', 'benchLoad'))()],
  ['scale', async () => (await load('./scale.js', 'benchScale'))()],
  [
    'search_concept',
    async () => (await import('./search-concept-pool.js')).benchSearchConcept(process.env),
  ],
  ['search_cpu', async () => (await load('./search-cpu.js', 'benchSearchCpu'))()],
  ['markdown', async () => (await load('./markdown.js', 'benchMarkdown'))()],
  ['startup', async () => (await import('./startup.js')).benchStartup()],
  ['pglite_open', async () => (await import('./pglite-open.js')).benchPGliteOpen(process.env)],
  ['pglite_churn', async () => (await import('./pglite-churn.js')).benchPGliteChurn(process.env)],
  ['start_sections', async () => (await load('./start-sections.js', 'benchStartSections'))()],
];

for (const [name, run] of suites) {
  if (!all && !wanted.has(name)) continue;
  // a tuning tool, a bench that needs a Postgres cluster (scripts/postgres.sh) and a crash hunt
  // that runs for many minutes: only when named
  if (
    all &&
    (name === 'relevance_tune' ||
      name === 'scale' ||
      name === 'search_cpu' ||
      name === 'search_concept' ||
      name === 'idle_variants' ||
      name === 'pglite_churn')
  )
    continue;
  console.log(`\n=== ${name} ===`);
  try {
    report[name] = await run();
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      String(e).includes(`${name}.`)
    ) {
      report[name] = 'not present';
      continue;
    }
    throw e;
  }
}
console.log('\n=== summary ===');
console.log(JSON.stringify(report, null, 2));
process.exit(0);
