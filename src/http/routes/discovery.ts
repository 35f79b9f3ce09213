import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { NETWORK_OF } from '../../wire/chains.js';
import { endpointsFromOpenApi } from '../../domain/discovery/manifest.js';
import { findLegalDocument, legalHtml } from '../../domain/legal/legal.js';
import { currentLegal } from '../../wire/legal.js';
import { ATTESTATION_DOMAIN, ATTESTATION_PRIMARY_TYPE } from '../../wire/previews.js';
import { notFound } from '../../errors.js';
import { retiredSigners, signerWithdrawals } from '../../domain/scan/signers.js';
import type { RouteGroup } from '../face.js';
import { describe } from '../route-meta.js';
import { sendCatalogue } from '../pages/catalogue.js';
import { preferredType, representationOf } from '../representation.js';
import { llmsTxt, wellKnownX402, type HostedMcpInfo } from '../../domain/discovery/documents.js';
import { hostedMcpTools } from '../../../mcp/hosted/tool-names.js';
import { WellKnownX402Schema } from '../../wire/discovery.js';

const FAVICON = readFileSync(new URL('../../../assets/favicon.svg', import.meta.url));

export const SPEC_VERSION = '3.2.5';

const rateLimitsOf = (config: Deps['config']) => ({
  windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
  publicMax: config.RATE_LIMIT_PUBLIC_MAX,
  challengeMax: config.RATE_LIMIT_CHALLENGE_MAX,
  accountMax: config.RATE_LIMIT_ACCOUNT_MAX,
  failureMax: config.RATE_LIMIT_FAILURE_MAX,
});
export const MANIFEST_VERSION = '2.4.0';

export const discoveryRoutes: RouteGroup = async (app, { deps, face }) => {
  const { config } = deps;
  const base = config.PUBLIC_BASE_URL;

  // The first look of someone who opens the base URL: what this is and where to read on.
  // A browser (Accept: text/html) gets the public catalogue page; every other Accept the JSON index.
  // One URL, two representations: caches keep them apart by Accept.
  app.get('/', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    reply.header('Vary', 'Accept');
    if (representationOf(request) === 'html')
      return sendCatalogue(deps, request, reply, face.payableOnly);
    return {
      name: 'code-artifact-marketplace',
      description:
        'Marketplace where autonomous agents sell and buy code archives, paid in USDC over x402 v2.',
      version: MANIFEST_VERSION,
      agent_usage_url: `${base}/agent-usage`,
      manifest_url: `${base}/api/v1/skills`,
      openapi_url: `${base}/openapi.json`,
      search_url: `${base}/api/v1/search?q=`,
      health_url: `${base}/api/v1/health`,
    };
  });

  app.get(
    '/api/v1/health',
    {
      config: { auth: 'public' },
      schema: describe('discovery', 'Liveness: always { status: "ok" }', {
        response: { 200: z.object({ status: z.literal('ok') }).strict() },
      }),
    },
    async () => ({ status: 'ok' as const }),
  );

  const mcp: HostedMcpInfo | undefined = config.MCP_HOSTED_ENABLED
    ? { url: `${base}/mcp`, tools: hostedMcpTools(config.CONTRACT_REVISION) }
    : undefined;

  let openapi: Record<string, unknown> | undefined;
  const openApiDocument = () => (openapi ??= app.swagger() as unknown as Record<string, unknown>);

  for (const url of ['/openapi.json', '/.well-known/openapi.json']) {
    app.get(url, { config: { auth: 'public' }, schema: { hide: true } }, async (_req, reply) =>
      reply.type('application/json').send(openApiDocument()),
    );
  }

  // x402 discovery document: the paid resources of this origin (newest listings, capped)
  app.get(
    '/.well-known/x402',
    { config: { auth: 'public' }, schema: { hide: true, response: { 200: WellKnownX402Schema } } },
    async (_req, reply) => {
      reply.header('Cache-Control', 'public, max-age=60');
      return wellKnownX402(deps.sql, base, {
        listingFee: face.accountAuth === 'id402',
        ...(mcp && { mcp }),
      });
    },
  );

  const llms = llmsTxt(base, { accountAuth: face.accountAuth, ...(mcp && { mcp }) });
  app.get(
    '/llms.txt',
    { config: { auth: 'public' }, schema: { hide: true } },
    async (_req, reply) => reply.type('text/markdown; charset=utf-8').send(llms),
  );

  // the service's icon (catalogues and the ecosystem's discovery checker look for one)
  for (const url of ['/favicon.svg', '/favicon.ico']) {
    app.get(url, { config: { auth: 'public' }, schema: { hide: true } }, async (_req, reply) =>
      reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(FAVICON),
    );
  }

  // The earlier attestation keys that still sign a stored report, read again at most once a
  // minute: they drop out once `npm run previews` signed the reports again with the current key.
  // A withdrawal made by this process is read at once (others within the minute).
  let retired: { at: number; epoch: number; signers: Promise<string[]> } | undefined;
  const retiredNow = () => {
    const epoch = signerWithdrawals();
    if (!retired || Date.now() - retired.at > 60_000 || retired.epoch !== epoch) {
      const signers = retiredSigners(deps.sql, deps.attestor.address);
      signers.catch(() => (retired = undefined));
      retired = { at: Date.now(), epoch, signers };
    }
    return retired.signers;
  };

  let manifest: ({ endpoints: Record<string, unknown>[] } & Record<string, unknown>) | undefined;
  app.get(
    '/api/v1/skills',
    {
      config: { auth: 'public' },
      schema: describe('discovery', 'Discovery manifest: service metadata and every endpoint', {
        response: { 200: z.looseObject({ endpoints: z.array(z.looseObject({})) }) },
      }),
    },
    async () => {
      manifest ??= {
        name: 'code-artifact-marketplace',
        description:
          'Marketplace where autonomous agents sell and buy AI-generated code archives, paid in USDC over x402 v2.',
        version: MANIFEST_VERSION,
        spec_version: SPEC_VERSION,
        contract_revision: config.CONTRACT_REVISION,
        base_url: base,
        agent_usage_url: `${base}/agent-usage`,
        openapi_url: `${base}/openapi.json`,
        discovery: {
          well_known_x402_url: `${base}/.well-known/x402`,
          well_known_openapi_url: `${base}/.well-known/openapi.json`,
          llms_txt_url: `${base}/llms.txt`,
          icon_url: config.SERVICE_ICON_URL ?? `${base}/favicon.svg`,
        },
        ...(mcp && {
          mcp: {
            url: mcp.url,
            transport: 'streamable-http',
            stateless: true,
            payment:
              'x402 MCP transport: PaymentPayload in params._meta["x402/payment"], receipt in _meta["x402/payment-response"]; identity tools also take a sign-in-with-x proof (the SIGN-IN-WITH-X header value) in params._meta["sign-in-with-x"]',
            tools: mcp.tools,
          },
        }),
        authentication: face.manifest.authentication(base),
        payment: {
          protocol: 'x402',
          x402_version: 2,
          scheme: 'exact',
          currency: 'USDC',
          chains: NETWORK_OF,
          ...face.manifest.payment(config),
          // x402 `payment-identifier` (issue 27), declared by every paid prompt
          payment_identifier: {
            extension: 'payment-identifier',
            required: false,
            retry: `Put one id per purchase (16-128 of A-Z a-z 0-9 _ -) in your payment's extensions["payment-identifier"].info.id and reuse it when you retry after a lost answer: a fresh signature with the same id returns the original result and charges nothing (after 402 payment_settlement_failed it answers the order if the failed transfer was mined after all, and is run afresh once the failed authorization can no longer move money: with a remote facilitator, ${config.X402_CHAIN_CLOCK_GRACE_SECONDS} s after its validBefore, as block timestamps may lag); the same id for another request answers 409 payment_identifier_conflict.`,
            kept_seconds_after_window: config.X402_PAYMENT_ID_RETENTION_SECONDS,
          },
        },
        legal: currentLegal(base),
        scan_attestation: {
          signer: deps.attestor.address,
          retired_signers: [] as string[],
          standard: 'EIP-712 typed data',
          domain: ATTESTATION_DOMAIN,
          primary_type: ATTESTATION_PRIMARY_TYPE,
          url: `${base}/api/v1/items/{uuid}/attestation`,
          verify:
            "viem: verifyTypedData({ address: a.signer, ...a.typed_data, signature: a.signature }) where a.signer is signer or one of retired_signers (keys this marketplace signed with before a key rotation), then compare a.typed_data.message.archiveSha256 with the download's SHA-256",
        },
        limits: {
          search_results: 20,
          query_max_chars: 1000,
          tech_stack_max_chars: 200,
          archive_max_bytes: config.MAX_ARCHIVE_BYTES,
          price_usdc: { min: config.MIN_PRICE_USDC, max: config.MAX_PRICE_USDC },
          active_listings_per_seller: config.MAX_ACTIVE_LISTINGS,
          rating_visibility_threshold: config.RATING_VISIBILITY_THRESHOLD,
          rate_limits: {
            window_seconds: config.RATE_LIMIT_WINDOW_SECONDS,
            unsigned_per_address: config.RATE_LIMIT_PUBLIC_MAX,
            ...face.manifest.rateLimits(config),
            failed_credentials_per_address: config.RATE_LIMIT_FAILURE_MAX,
            exceeded: '429 rate_limited with Retry-After (seconds; also retry_after in the body)',
          },
        },
        endpoints: endpointsFromOpenApi(openApiDocument()) as unknown as Record<string, unknown>[],
      };
      const scan = manifest.scan_attestation as Record<string, unknown>;
      return { ...manifest, scan_attestation: { ...scan, retired_signers: await retiredNow() } };
    },
  );

  app.get(
    '/agent-usage',
    { config: { auth: 'public' }, schema: { hide: true } },
    async (_req, reply) =>
      reply.type('text/markdown; charset=utf-8').send(
        face.guide(base, {
          revision: config.CONTRACT_REVISION,
          listingFeeUsdc: config.LISTING_FEE_USDC,
          maxArchiveBytes: config.MAX_ARCHIVE_BYTES,
          minPriceUsdc: config.MIN_PRICE_USDC,
          maxPriceUsdc: config.MAX_PRICE_USDC,
          maxActiveListings: config.MAX_ACTIVE_LISTINGS,
          feedbackWindowDays: config.FEEDBACK_WINDOW_DAYS,
          platformFeedbackPerDay: config.PLATFORM_FEEDBACK_DAILY_LIMIT,
          payoutIntervalMinutes: Math.round(config.PAYOUT_INTERVAL_SECONDS / 6) / 10,
          chainClockGraceSeconds: config.X402_CHAIN_CLOCK_GRACE_SECONDS,
          ratingThreshold: config.RATING_VISIBILITY_THRESHOLD,
          rateLimits: rateLimitsOf(config),
          catalogName: config.DISCOVERY_CATALOG_NAME,
        }),
      ),
  );

  const legalParams = z.object({ version: z.string().regex(/^v\d+$/, { error: 'not_found' }) });
  for (const kind of ['terms', 'license'] as const) {
    app.get(
      `/${kind}/:version`,
      { config: { auth: 'public' }, schema: { hide: true, params: legalParams } },
      async (request, reply) => {
        const doc = findLegalDocument(kind, request.params.version);
        if (!doc) throw notFound('not_found', `No ${kind} document of that version.`);
        const type = preferredType(request, ['text/markdown', 'text/html', 'text/plain']);
        if (type === 'text/html')
          return reply.type('text/html; charset=utf-8').send(legalHtml(doc));
        return reply
          .type(`${type === 'text/plain' ? 'text/plain' : 'text/markdown'}; charset=utf-8`)
          .send(doc.markdown);
      },
    );
  }
};
