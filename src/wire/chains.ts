import { z } from 'zod';

/** Public chain vocabulary and its CAIP-2 networks (spec 5.2 rule 7). */
export const CHAINS = ['base', 'polygon'] as const;
export const ChainSchema = z.enum(CHAINS);
export type Chain = z.infer<typeof ChainSchema>;

export const NETWORK_OF: Record<Chain, `eip155:${number}`> = {
  base: 'eip155:8453',
  polygon: 'eip155:137',
};
export const CHAIN_ID_OF: Record<Chain, number> = { base: 8453, polygon: 137 };

export function chainOfNetwork(network: string): Chain | undefined {
  return (Object.keys(NETWORK_OF) as Chain[]).find((c) => NETWORK_OF[c] === network);
}
