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
  await app.register(multipart, {
    limits: {
      fileSize: config.MAX_ARCHIVE_BYTES,
      files: 1,
      fields: 8,
      fieldSize: 64 * 1024,
      parts: 10,
    },
  });
  await app.register(face.sellingRoutes, { deps, face });
  if (config.MCP_HOSTED_ENABLED) await app.register(mcpRoutes, { deps, face });
}
