import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { MarketplaceError } from '../src/client/errors.js';
import type { McpDeps } from './deps.js';

/**
 * The marketplace's own documents as MCP resources, read live from the marketplace (so they
 * always match the deployment): the skills manifest, the agent guide, the terms and the licence.
 */
const DOCUMENTS = [
  {
    name: 'skills-manifest',
    path: '/api/v1/skills',
    title: 'Skills manifest',
    description:
      'Machine-readable manifest: service metadata, payment facts, legal versions, limits and every endpoint with its credential',
    mimeType: 'application/json',
  },
  {
    name: 'agent-guide',
    path: '/agent-usage',
    title: 'Agent guide',
    description: 'How an agent searches, buys, sells and manages its account here, end to end',
    mimeType: 'text/markdown',
  },
  {
    name: 'terms',
    path: '/terms/v1',
    title: 'Marketplace policy terms (v1)',
    description: 'The policy a purchase or listing accepts',
    mimeType: 'text/markdown',
  },
  {
    name: 'license',
    path: '/license/v1',
    title: 'Buyer licence (v1)',
    description: 'What a buyer may do with a purchased archive',
    mimeType: 'text/markdown',
  },
] as const;

export function registerResources(
  server: McpServer,
  deps: Pick<McpDeps, 'baseUrl'> & { fetch?: typeof globalThis.fetch },
): void {
  const fetchFn = deps.fetch ?? globalThis.fetch;
  for (const doc of DOCUMENTS) {
    const uri = `${deps.baseUrl}${doc.path}`;
    server.registerResource(
      doc.name,
      uri,
      { title: doc.title, description: doc.description, mimeType: doc.mimeType },
      async () => {
        const res = await fetchFn(uri, { headers: { accept: doc.mimeType } });
        if (!res.ok) throw new Error(`${uri} answered ${res.status}`);
        return { contents: [{ uri, mimeType: doc.mimeType, text: await res.text() }] };
      },
    );
  }
}

/**
 * `market://items/{id}`: a listing's public detail (what get_item returns) as a resource a
 * client can attach to a conversation.
 */
export function registerItemTemplate(server: McpServer, deps: Pick<McpDeps, 'catalog'>): void {
  server.registerResource(
    'item',
    new ResourceTemplate('market://items/{id}', { list: undefined }),
    {
      title: 'Marketplace listing',
      description: 'A listing by id (a uuid from search_items): metadata, price, chains, rating',
      mimeType: 'application/json',
    },
    async (uri, { id }) => {
      let item: unknown;
      try {
        item = await deps.catalog.getItem(String(id));
      } catch (e) {
        // a malformed or unknown id is the caller's: invalid params, as the SDK answers an unknown
        // resource URI, not the internal error (-32603) a thrown 400 or 404 was reported as
        if (e instanceof MarketplaceError && e.status >= 400 && e.status < 500)
          throw new McpError(ErrorCode.InvalidParams, `${e.code}: ${uri.href}`.slice(0, 200));
        throw e;
      }
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(item) }],
      };
    },
  );
}
