import { openSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { redactJsonLine } from '../../src/log-redact.js';
import { createLogger } from '../../src/logger.js';

/**
 * The cost of one log line in isolation (docs/operating.md, logs): the request line the payments
 * path writes once per request, and a line with a signature nested three levels deep, through
 * createLogger (JSON to /dev/null). `npx tsx test/bench/log-line.ts`; prints µs per line.
 * The logger knows the secrets a production deployment configures (two private keys, three
 * tokens, a database password), each looked for in every line; BENCH_LOG_SECRETS=0: none.
 */
const secrets =
  process.env.BENCH_LOG_SECRETS === '0'
    ? {}
    : {
        ATTESTATION_PRIVATE_KEY: `0x${'1f'.repeat(32)}`,
        RELAYER_PRIVATE_KEY: `0x${'2e'.repeat(32)}`,
        URL_SIGNING_SECRET: 'u'.repeat(40),
        ADMIN_TOKEN: 'a'.repeat(40),
        METRICS_TOKEN: 'm'.repeat(24),
        DATABASE_URL: 'postgres://app:db-password-here@db:5432/app',
      };
const logger = createLogger(
  { LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...secrets },
  openSync('/dev/null', 'w'),
);
const request = logger.child({ reqId: '5b0c1c0e-8a4c-4f7e-9d3e-0f6c2a8e4b11' });
const line = {
  method: 'POST',
  route: '/api/v1/items/:id/purchase',
  url: '/api/v1/items/0b7e6a7e-2f7e-4c55-9a55-1f3b8c1f2d11/purchase',
  status: 200,
  ms: 41.3,
};
/** A signature spelled out inside an error's message: found by its shape, not by a key. */
const inMessage = {
  err: { message: `settle failed: signature 0x${'ab'.repeat(65)} was rejected` },
};
const nested = {
  err: { data: { paymentPayload: { payload: { signature: `0x${'ab'.repeat(65)}` } } } },
};

function perLine(write: () => void, n: number): number {
  for (let i = 0; i < 20_000; i++) write();
  const started = performance.now();
  for (let i = 0; i < n; i++) write();
  return ((performance.now() - started) * 1000) / n;
}

const rounds = 5;
const requestLine: number[] = [];
const nestedLine: number[] = [];
const redactRequest: number[] = [];
const redactNested: number[] = [];
const redactInMessage: number[] = [];
const asWritten = (o: object) =>
  `${JSON.stringify({ level: 30, time: Date.now(), pid: 1, hostname: 'h', reqId: 'r', ...o, msg: 'm' })}\n`;
const [requestJson, nestedJson, inMessageJson] = [line, nested, inMessage].map(asWritten) as [
  string,
  string,
  string,
];
let sink = 0;
for (let r = 0; r < rounds; r++) {
  requestLine.push(perLine(() => request.info(line, 'request completed'), 100_000));
  nestedLine.push(perLine(() => request.warn(nested, 'facilitator settle threw'), 100_000));
  redactRequest.push(perLine(() => (sink += redactJsonLine(requestJson).length), 1_000_000));
  redactNested.push(perLine(() => (sink += redactJsonLine(nestedJson).length), 1_000_000));
  redactInMessage.push(perLine(() => (sink += redactJsonLine(inMessageJson).length), 1_000_000));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  JSON.stringify({
    request_line_us: Number(median(requestLine).toFixed(3)),
    nested_signature_line_us: Number(median(nestedLine).toFixed(3)),
    // the any-depth redaction alone (src/log-redact.ts), on the same lines as written
    redact_request_line_us: Number(median(redactRequest).toFixed(3)),
    redact_nested_line_us: Number(median(redactNested).toFixed(3)),
    redact_signature_in_message_line_us: Number(median(redactInMessage).toFixed(3)),
    sink: sink > 0,
  }),
);
