import multipart from '@fastify/multipart';
import type { Config } from '../../config.js';
import type { Deps } from '../../deps.js';
import type { RevisionFace } from '../face.js';
import type { FastifyInstance } from 'fastify';
import { acquireRoutes } from './acquire.js';
import { discoveryRoutes } from './discovery.js';
import { itemRoutes } from './items.js';
import { mcpRoutes } from './mcp.js';

/** The feature routes, in a fixed order, on the root instance (no encapsulation of their own). */
export async function registerRoutes(
  app: FastifyInstance,
  config: Config,
  face: RevisionFace,
  deps: Deps,
): Promise<void> {
  await app.register(discoveryRoutes, { deps, face });
  await app.register(itemRoutes, { deps, face });
  await app.register(acquireRoutes, { deps, face });
  // The revision's own routes: only this deployment's are served (and so documented in OpenAPI
  // and the manifest).
  for (const routes of face.routes) await app.register(routes, { deps, face });
  // Uploads stream through multipart; the file part is cut off past MAX_ARCHIVE_BYTES (413).
  // busboy hands over `fileSize` bytes and then swallows the rest of the part before it ends the
  // stream, so at exactly the limit the reader cannot tell a long part from one that fits and
  // waited for the whole body (a declared 1 GB was read whole before its 413). One byte more is
  // handed over: the reader sees the part is too long and refuses it at once.
  await app.register(multipart, {
    limits: {
      fileSize: config.MAX_ARCHIVE_BYTES + 1,
      files: 1,
      fields: 8,
      fieldSize: 64 * 1024,
      parts: 10,
    },
  });
  await app.register(face.sellingRoutes, { deps, face });
  if (config.MCP_HOSTED_ENABLED) await app.register(mcpRoutes, { deps, face });
}
