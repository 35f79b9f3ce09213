import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parsePaymentPayload, parsePaymentRequirements } from '@x402/core/schemas';

/**
 * A stand-in x402 facilitator on loopback speaking the real wire protocol (POST /verify and
 * /settle with `{ x402Version, paymentPayload, paymentRequirements }`, GET /supported). Every
 * request body is validated with @x402/core's schemas and kept for assertions; answers are
 * scripted per test.
 */
export type FakeMode =
  | 'ok'
  | 'verify_invalid'
  | 'settle_pending'
  | 'settle_capacity'
  | 'settle_failed'
  | 'settle_failed_broadcast'
  | 'settle_slow'
  | 'settle_hang';

export interface FakeFacilitator {
  url: string;
  mode: FakeMode;
  /** How long `settle_slow` takes before it answers. */
  slowMs: number;
  requests: Array<{ path: string; body: unknown; valid: boolean }>;
  /**
   * Told of every settlement this facilitator sends to the chain (modes `ok`, `settle_slow` and
   * `settle_hang`), before it answers: e.g. to record it on a fake chain (`FakeRpc.mine`).
   */
  onSettle?: (s: { payer: string; nonce: string; transaction: string; network: string }) => void;
  /**
   * While set, a `/settle` that arrives waits for it before answering, in the mode that was set
   * when it arrived (a race: the next request may meet another mode).
   */
  hold?: Promise<void>;
  close(): Promise<void>;
}

export async function startFakeFacilitator(): Promise<FakeFacilitator> {
  const state: FakeFacilitator = {
    url: '',
    mode: 'ok',
    slowMs: 1500,
    requests: [],
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url === '/supported') {
        state.requests.push({ path: '/supported', body: undefined, valid: true });
        return send(200, {
          kinds: [
            { x402Version: 2, scheme: 'exact', network: 'eip155:8453' },
            { x402Version: 2, scheme: 'exact', network: 'eip155:137' },
          ],
          extensions: [],
          signers: { 'eip155:*': ['0x000000000000000000000000000000000000fac1'] },
        });
      }
      let body: { x402Version?: number; paymentPayload?: unknown; paymentRequirements?: unknown } =
        {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: 'invalid json' });
      }
      const payload = parsePaymentPayload(body.paymentPayload);
      const reqs = parsePaymentRequirements(body.paymentRequirements);
      const valid = body.x402Version === 2 && payload.success && reqs.success;
      state.requests.push({ path: req.url ?? '', body, valid });
      if (!valid) return send(400, { isValid: false, invalidReason: 'invalid_payload' });
      const auth = (payload.data.payload as { authorization: { from: string; nonce: string } })
        .authorization;
      const network = reqs.data.network;
      if (req.url === '/verify') {
        if (state.mode === 'verify_invalid')
          return send(400, {
            isValid: false,
            invalidReason: 'invalid_exact_evm_insufficient_balance',
            payer: auth.from,
          });
        return send(200, { isValid: true, payer: auth.from });
      }
      const settle = (mode: FakeMode) => {
        const tx = `0x${randomBytes(32).toString('hex')}`;
        if (['ok', 'settle_slow', 'settle_hang'].includes(mode)) {
          state.onSettle?.({ payer: auth.from, nonce: auth.nonce, transaction: tx, network });
        }
        switch (mode) {
          case 'settle_pending':
            return send(200, {
              success: false,
              errorReason: 'settlement_pending',
              transaction: tx,
              network,
              payer: auth.from,
            });
          case 'settle_capacity':
            // the facilitator's own answer: busy, nothing sent
            return send(503, {
              success: false,
              errorReason: 'settlement_capacity',
              transaction: '',
              network,
            });
          case 'settle_failed':
            return send(400, {
              success: false,
              errorReason: 'invalid_exact_evm_transaction_failed',
              transaction: '',
              network,
            });
          case 'settle_failed_broadcast':
            // it sent the transfer, then gave up on its receipt: a failure with the hash
            return send(400, {
              success: false,
              errorReason: 'invalid_exact_evm_transaction_failed',
              transaction: tx,
              network,
              payer: auth.from,
            });
          case 'settle_slow':
            setTimeout(
              () => send(200, { success: true, transaction: tx, network, payer: auth.from }),
              state.slowMs,
            );
            return;
          case 'settle_hang':
            // The facilitator took the settle and never answers (it may or may not broadcast).
            return;
          default:
            return send(200, { success: true, transaction: tx, network, payer: auth.from });
        }
      };
      if (req.url === '/settle') {
        const mode = state.mode;
        if (!state.hold) return settle(mode);
        void state.hold.then(() => settle(mode));
        return;
      }
      send(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
