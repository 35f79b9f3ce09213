import { Agent, request } from 'node:http';

/**
 * The payments bench's load generator, in a child process of its own so that the server process's
 * CPU time per completion counts the server alone. Receives `{ url, headers, body, concurrency }`
 * over IPC, posts one request per signed header (keep-alive, `concurrency` at a time) and answers
 * `{ seconds, failures }`.
 */
interface Job {
  url: string;
  headers: string[];
  body?: string;
  concurrency: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function post(url: URL, header: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'payment-signature': header,
          ...(body && { 'content-length': Buffer.byteLength(body) }),
        },
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

async function drive(job: Job): Promise<{ seconds: number; failures: number }> {
  const url = new URL(job.url);
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (next < job.headers.length) {
        const status = await post(url, job.headers[next++]!, job.body);
        if (status !== 200) failures++;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, failures };
}

process.on('message', (job: Job | 'exit') => {
  if (job === 'exit') process.exit(0);
  void drive(job).then(
    (r) => process.send!(r),
    (e: unknown) => process.send!({ error: String(e) }),
  );
});
process.send!('ready');
