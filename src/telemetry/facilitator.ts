import { classifySettle, classifySettleError, type Facilitator } from '../x402/facilitator.js';
import type { Metrics } from './metrics.js';
import type { Tracing } from './tracing.js';

/**
 * Times every settlement at the facilitator (verify + settle: the remote facilitator's round
 * trips or the chain's receipt wait) into `marketplace_settlement_duration_seconds`, and wraps it
 * in a span when tracing is on. The method is replaced on the instance, so the facilitator keeps
 * its class and every other method; the payment processor is untouched. The built-in dev ledger
 * settles inside the purchase's own statement (`inlineSettlement`): only its stepwise fallback
 * passes here.
 */
export function instrumentFacilitator(
  facilitator: Facilitator,
  metrics: Pick<Metrics, 'settled'>,
  tracing?: Tracing,
): void {
  const settle = facilitator.settleChecked.bind(facilitator);
  const timed: Facilitator['settleChecked'] = async (payload, req) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const out = await settle(payload, req);
      const result = out.rejectedBeforeSettlement ? 'rejected' : classifySettle(out.response).kind;
      metrics.settled(req.network, result, seconds());
      return out;
    } catch (err) {
      metrics.settled(req.network, classifySettleError(err, req.network).kind, seconds());
      throw err;
    }
  };
  facilitator.settleChecked = tracing
    ? (payload, req) =>
        tracing.span(
          'facilitator settle',
          { 'x402.facilitator': facilitator.kind, 'x402.network': req.network },
          () => timed(payload, req),
        )
    : timed;
  if (tracing) {
    const state = facilitator.authorizationState.bind(facilitator);
    facilitator.authorizationState = (q) =>
      tracing.span(
        'facilitator authorization state',
        { 'x402.facilitator': facilitator.kind, 'x402.network': q.network },
        () => state(q),
      );
  }
}
