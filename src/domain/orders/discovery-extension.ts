import type { Config } from '../../config.js';
import type { Chain } from '../../wire/chains.js';
import type { CurrentLegal } from '../../wire/legal.js';
import { toUsdc, type Micro } from '../../wire/money.js';
import { bodyDiscoverySchema } from '../discovery/bazaar.js';
import { revisionBAcquire, type AcquireMode } from './acquire-mode.js';

/** What the discovery extension shows of the item on sale. */
export interface DiscoveryItem {
  id: string;
  title: string;
  price: Micro;
}

/** `extensions.bazaar`: how to complete this purchase, legal terms, provider and item (spec 2.9). */
export function acquireDiscovery(
  config: Config,
  item: DiscoveryItem,
  chains: Chain[],
  legal: CurrentLegal,
  mode: AcquireMode = revisionBAcquire,
) {
  const chain = chains[0]!;
  const base = config.PUBLIC_BASE_URL;
  const target = mode.completionTarget(item.id, chain);
  const orderExample = {
    order_id: '00000000-0000-4000-8000-000000000000',
    download_url: `${base}/api/v1/downloads/00000000-0000-4000-8000-000000000000?exp=0&sig=...`,
    ...mode.invoiceExample(base),
    expires_in: '15 minutes',
    ...mode.buyerAccountExample(base),
  };
  const input = {
    type: 'http',
    method: 'POST',
    bodyType: 'json',
    ...mode.pathParams(item.id),
    body: target,
    prompt_request: {
      example: target,
      optional_fields: ['chain'],
      ...mode.promptRequired,
    },
    completion_request: {
      example: { ...target, policy_accepted: true, license_accepted: true },
      required_fields: [...mode.completionRequired, 'policy_accepted', 'license_accepted'],
      defaults: { currency: 'USDC', chain },
      header: 'PAYMENT-SIGNATURE',
    },
  };
  return mode.discoveryShape({
    // every listing's acquire is one route to a catalogue
    ...('pathParams' in input && { routeTemplate: '/api/v1/items/:uuid/acquire' }),
    info: {
      input,
      output: { type: 'json', example: orderExample },
      legal: {
        policy: { version: legal.policy.version, url: legal.policy.url },
        license: { version: legal.license.version, url: legal.license.url },
      },
      provider: { name: 'Code artifact marketplace', url: base, manifest: `${base}/api/v1/skills` },
      item: {
        id: item.id,
        title: item.title.slice(0, 120),
        price_usdc: toUsdc(item.price),
        chains,
      },
    },
    schema: bodyDiscoverySchema({
      method: 'POST',
      bodyType: 'json',
      body: mode.schemas.body,
      response: mode.schemas.response,
      ...('pathParams' in input && { pathParams: ['uuid'] }),
    }),
  });
}
