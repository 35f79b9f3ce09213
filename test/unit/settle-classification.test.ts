import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTPFacilitatorClient } from '@x402/core/http';
import { FacilitatorResponseError, SettleError, type PaymentPayload } from '@x402/core/types';
import { describe, expect, it } from 'vitest';
import {
  classifySettle,
  classifySettleError,
  SettlementNotAttempted,
} from '../../src/x402/facilitator.js';
import { exampleRequirement } from '../helpers/wallets.js';

/**
 * Review s27: `capacity` releases the claim (nonce and payment id free again, never asked about
 * again) and tells the buyer "nothing was charged". It must only be chosen when the facilitator
 * cannot have broadcast. A settle answer that names a transaction, a connection lost after the
 * request was sent, or an unparseable 200 all may have moved the money. Review s28: so may a
 * 503/502/429 page without an x402 body, which a proxy sends after its upstream took the request.
 */
const net = 'eip155:8453';
describe('classifySettle / classifySettleError never call a possible broadcast "capacity"', () => {
  it('a 503 x402 body that names a transaction', () => {
    const o = classifySettle(
      {
        success: false,
        errorReason: 'unexpected_settle_error',
        transaction: '0xabc',
        network: net,
      },
      503,
    );
    expect(o.kind).not.toBe('capacity');
  });
  it('a 502 SettleError that names a transaction', () => {
    const o = classifySettleError(
      new SettleError(502, {
        success: false,
        errorReason: 'unexpected_settle_error',
        transaction: '0xabc',
        network: net,
      } as never),
      net,
    );
    expect(o.kind).not.toBe('capacity');
  });
  it('a connection reset after the request was sent', () => {
    const err = new TypeError('fetch failed', {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(classifySettleError(err, net).kind).not.toBe('capacity');
  });
  it('a 200 whose body does not parse', () => {
    const err = new FacilitatorResponseError('Facilitator settle returned invalid JSON: <html>');
    expect(classifySettleError(err, net).kind).not.toBe('capacity');
  });
});

/** What @x402/core's HTTP client throws when /settle goes to `url`. */
async function settleError(url: string): Promise<unknown> {
  const payload = { x402Version: 2, accepted: exampleRequirement, payload: {} } as PaymentPayload;
  return new HTTPFacilitatorClient({ url, timeoutMs: 5_000 })
    .settle(payload, exampleRequirement)
    .then(
      () => undefined,
      (err: unknown) => err,
    );
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}
const urlOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
const closed = (s: Server) => new Promise((r) => s.close(r));

describe('capacity stays for what provably never reached /settle', () => {
  it('a refused connection (real fetch to a closed port) is capacity', async () => {
    const server = await listen(() => undefined);
    const url = urlOf(server);
    await closed(server);
    expect(classifySettleError(await settleError(url), net)).toMatchObject({
      kind: 'capacity',
      reason: 'facilitator_unavailable',
    });
  });
  it('a connection reset after the request was read (real socket) is pending', async () => {
    const server = await listen((req) => req.on('data', () => req.socket.destroy()));
    const err = await settleError(urlOf(server));
    await closed(server);
    expect(classifySettleError(err, net)).toMatchObject({ kind: 'pending', transaction: '' });
  });
  it("a 429/503 is capacity only as the facilitator's own x402 body naming no transaction", async () => {
    let answer: { status: number; type: string; body: string } = {
      status: 503,
      type: 'text/plain',
      body: '',
    };
    const server = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(answer.status, { 'content-type': answer.type });
        res.end(answer.body);
      });
    });
    const kindOf = async (status: number, type: string, body: string) => {
      answer = { status, type, body };
      return classifySettleError(await settleError(urlOf(server)), net).kind;
    };
    const x402 = (errorReason: string, transaction = '') =>
      JSON.stringify({ success: false, errorReason, transaction, network: net });
    try {
      // pages from a proxy or load balancer, which answer after the upstream may have taken the
      // request (Envoy's reset, a dead backend, a gateway timeout): the money may have moved
      const envoy =
        'upstream connect error or disconnect/reset before headers. reset reason: connection termination';
      expect(await kindOf(503, 'text/plain', envoy)).toBe('pending');
      expect(await kindOf(503, 'text/html', '<html>Service Unavailable</html>')).toBe('pending');
      expect(await kindOf(502, 'text/html', '<html>502 Bad Gateway</html>')).toBe('pending');
      expect(await kindOf(504, 'text/html', '<html>busy</html>')).toBe('pending');
      expect(await kindOf(429, 'text/html', '<html>Too Many Requests</html>')).toBe('pending');
      expect(await kindOf(503, 'application/json', '{"message":"no healthy upstream"}')).toBe(
        'pending',
      );
      expect(await kindOf(503, 'application/json', '{"success":false}')).toBe('pending');
      // Review s29: a 4xx JSON page with a `success` field but no x402 reason is a gateway's or a
      // WAF's envelope (Cloudflare's API shape, a load balancer's 408), not the facilitator's word
      const cloudflare =
        '{"success":false,"errors":[{"code":10000,"message":"Authentication error"}]}';
      expect(await kindOf(403, 'application/json', cloudflare)).toBe('pending');
      expect(await kindOf(408, 'application/json', '{"success":false,"error":"timeout"}')).toBe(
        'pending',
      );
      expect(await kindOf(400, 'application/json', '{"success":false}')).toBe('pending');
      // a definite x402 failure at a 4xx still says the transfer was refused
      expect(
        await kindOf(400, 'application/json', x402('invalid_exact_evm_payload_signature')),
      ).toBe('failed');
      // the facilitator's own answer that it did not settle
      expect(await kindOf(503, 'application/json', x402('settlement_capacity'))).toBe('capacity');
      expect(await kindOf(429, 'application/json', x402('rate_limited'))).toBe('capacity');
      expect(await kindOf(503, 'application/json', x402('unexpected_settle_error'))).toBe(
        'capacity',
      );
      // ...unless it names a transaction: broadcast, the chain decides
      expect(await kindOf(503, 'application/json', x402('relayer_busy', '0xabc'))).toBe('pending');
    } finally {
      await closed(server);
    }
  });
  it('a 200 in the settle shape with no errorReason is pending, not failed (review s29)', async () => {
    const body = { success: false, transaction: '', network: net };
    const server = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    try {
      const payload = {
        x402Version: 2,
        accepted: exampleRequirement,
        payload: {},
      } as PaymentPayload;
      const answer = await new HTTPFacilitatorClient({
        url: urlOf(server),
        timeoutMs: 5_000,
      }).settle(payload, exampleRequirement);
      // nothing says the transfer was refused: the chain decides
      expect(classifySettle(answer)).toMatchObject({ kind: 'pending', transaction: '' });
    } finally {
      await closed(server);
    }
  });
  it('a failure before settlement was requested (the verify phase) is capacity', () => {
    expect(classifySettleError(new SettlementNotAttempted(new Error('verify 502')), net).kind).toBe(
      'capacity',
    );
  });
  it('a 503 x402 body without a transaction is capacity', () => {
    expect(
      classifySettle(
        { success: false, errorReason: 'unexpected_settle_error', transaction: '', network: net },
        503,
      ).kind,
    ).toBe('capacity');
  });
});
