import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/** The caller's ISO country as the edge reports it (`REGION_COUNTRY_HEADER`), for region gating. */
export function countryOf(
  request: FastifyRequest,
  config: Pick<Config, 'REGION_COUNTRY_HEADER'>,
): string | undefined {
  const v = request.headers[config.REGION_COUNTRY_HEADER.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
