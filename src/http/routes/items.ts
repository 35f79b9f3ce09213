import type { RouteGroup } from '../face.js';
import { getPublicItem, getPublicStatus } from '../../domain/items/public-item.js';
import { getPublicPreview } from '../../domain/items/preview.js';
import { getAttestation } from '../../domain/scan/attestation.js';
import { ItemPreviewSchema, ScanAttestationSchema } from '../../wire/previews.js';
import {
  ItemParamsSchema,
  PublicItemSchema,
  PublicStatusSchema,
  SearchQuerySchema,
  SearchResultsSchema,
} from '../../wire/items.js';
import { searchItems } from '../../domain/search/search.js';
import { describe } from '../route-meta.js';
import { ErrorSchema } from '../../wire/errors.js';

export const itemRoutes: RouteGroup = async (app, { deps, face }) => {
  const { sql, embedder, config } = deps;

  app.get(
    '/api/v1/search',
    {
      config: { auth: 'public' },
      schema: describe(
        'discovery',
        'Hybrid semantic + keyword search over active listings (at most 20)',
        {
          querystring: SearchQuerySchema,
          response: { 200: SearchResultsSchema, 400: ErrorSchema },
        },
      ),
    },
    async (request) =>
      searchItems(sql, embedder, request.query, {
        efSearch: config.SEARCH_EF_SEARCH,
        ratingThreshold: config.RATING_VISIBILITY_THRESHOLD,
        payableOnly: face.payableOnly,
        telemetry: deps.telemetry,
      }),
  );

  app.get(
    '/api/v1/items/:uuid',
    {
      config: { auth: 'public', errors: ['item_not_found'] },
      schema: describe('discovery', 'Item detail of an active listing', {
        params: ItemParamsSchema,
        response: { 200: PublicItemSchema, 400: ErrorSchema, 404: ErrorSchema },
      }),
    },
    async (request) => getPublicItem(sql, request.params.uuid, config.RATING_VISIBILITY_THRESHOLD),
  );

  app.get(
    '/api/v1/items/:uuid/preview',
    {
      config: { auth: 'public' },
      schema: describe(
        'discovery',
        'Preview of an active listing: file tree, languages, licence, manifests, tests, README excerpt',
        {
          params: ItemParamsSchema,
          response: { 200: ItemPreviewSchema, 400: ErrorSchema, 404: ErrorSchema },
        },
      ),
    },
    async (request) => getPublicPreview(sql, request.params.uuid),
  );

  app.get(
    '/api/v1/items/:uuid/attestation',
    {
      config: { auth: 'public' },
      schema: describe(
        'discovery',
        'Signed scan report (EIP-712) of a listing; stays verifiable after takedown or deletion',
        {
          params: ItemParamsSchema,
          response: { 200: ScanAttestationSchema, 400: ErrorSchema, 404: ErrorSchema },
        },
      ),
    },
    async (request) => getAttestation(sql, request.params.uuid),
  );

  app.get(
    '/api/v1/items/:uuid/status',
    {
      config: { auth: 'public', errors: ['item_not_found'] },
      schema: describe('discovery', 'Public status of a listing (Revision B: 404 unless active)', {
        params: ItemParamsSchema,
        response: { 200: PublicStatusSchema, 400: ErrorSchema, 404: ErrorSchema },
      }),
    },
    async (request) => getPublicStatus(sql, request.params.uuid, face.publicStatuses),
  );
};
