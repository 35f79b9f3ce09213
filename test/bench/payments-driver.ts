import { Agent, request } from 'node:http';

/**
 * The benches' HTTP load generator, in a child process of its own so that the server process's
 * CPU time per request counts the server alone. Receives a job over IPC: `{ url, headers, body }`
 * posts one request per signed PAYMENT-SIGNATURE header (to `url`, or in turn to each of `targets`),
 * `{ urls }` gets each URL; keep-alive, `concurrency` requests at a time (a closed loop: each
 * connection sends its next request when the last one is answered). With `rate` (requests per
 * second) the `urls` are an open loop instead: request i is due at i / rate seconds and sent then
 * whatever is still unanswered (over at most `concurrency` connections; a request finding them all
 * busy waits for one), and its latency runs from the time it was due, so that waiting in any queue
 * counts (no coordinated omission). Answers `{ seconds, failures, statuses }` (failures: not a
 * 200), and with `latencies: true` every request's milliseconds in the order they finished.
 */
interface Job {
  url?: string;
  targets?: string[];
  headers?: string[];
  body?: string;
  urls?: string[];
  concurrency: number;
  latencies?: boolean;
  rate?: number;
}

let agent = new Agent({ keepAlive: true, maxSockets: 64 });

function send(url: URL | string, header?: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: header ? 'POST' : 'GET',
        agent,
        headers: header
          ? {
              'content-type': 'application/json',
              'payment-signature': header,
              ...(body && { 'content-length': Buffer.byteLength(body) }),
            }
          : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function drive(job: Job): Promise<{
  seconds: number;
  failures: number;
  statuses: Record<number, number>;
  latencies?: number[];
}> {
  if (job.concurrency > agent.maxSockets) {
    agent.destroy();
    agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  }
  const targets = (job.targets ?? (job.url ? [job.url] : [])).map((u) => new URL(u));
  const total = job.urls?.length ?? job.headers?.length ?? 0;
  let next = 0;
  let failures = 0;
  const statuses: Record<number, number> = {};
  const latencies: number[] = [];
  const started = performance.now();
  if (job.rate) {
    const urls = job.urls ?? [];
    const interval = 1000 / job.rate;
    await Promise.all(
      urls.map(async (url, i) => {
        const due = started + i * interval;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const status = await send(url).catch(() => 0);
        if (job.latencies) latencies.push(performance.now() - due);
        if (status !== 200) failures++;
        statuses[status] = (statuses[status] ?? 0) + 1;
      }),
    );
    return {
      seconds: (performance.now() - started) / 1000,
      failures,
      statuses,
      ...(job.latencies && { latencies }),
    };
  }
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const sent = performance.now();
        const status = job.urls
          ? await send(job.urls[i]!)
          : await send(targets[i % targets.length]!, job.headers![i]!, job.body);
        if (job.latencies) latencies.push(performance.now() - sent);
        if (status !== 200) failures++;
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return {
    seconds: (performance.now() - started) / 1000,
    failures,
    statuses,
    ...(job.latencies && { latencies }),
  };
}

process.on('message', (job: Job | 'exit') => {
  if (job === 'exit') process.exit(0);
  void drive(job).then(
    (r) => process.send!(r),
    (e: unknown) => process.send!({ error: String(e) }),
  );
});
process.send!('ready');
