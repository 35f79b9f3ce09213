# syntax=docker/dockerfile:1
# One image for every role, all from the compiled dist/ (no tsx, no TypeScript at run time):
#   docker run -p 3000:3000 -v market-data:/data -e PUBLIC_BASE_URL=http://localhost:3000 IMAGE
#   docker run IMAGE node dist/src/main.js worker        (also: migrate, reindex, demo, unresolved-payments;
#     long-running ones want CMD's node flags too, see the runtime stage)
#   docker run -i -v mcp-state:/data IMAGE node dist/mcp/main.js   (the MCP server over stdio; its
#     state and downloads default to /data/mcp: MCP_DATA_DIR, MCP_DOWNLOAD_DIR)
# Same Node major as package.json engines, the README and CI. `npm run image:check` reproduces these
# stages without Docker (test/image/check.ts reads this file) and runs every entry from the result.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY mcp ./mcp
# the built-in embedder's word vectors, the demo projects and the agent guides: npm run build copies them to dist/assets
COPY assets ./assets
# npm run build also writes dist/db-template/ (PGlite's initdb and the migrations run once here, by
# the same PGlite version the image runs): a first start on an empty /data copies it instead
COPY migrations ./migrations
# the one build (scripts/build.mjs); the prune list is scripts/prune-runtime.sh, shared with `npm run image:check`
COPY scripts/build.mjs scripts/lazy-requires.mjs scripts/prune-runtime.sh ./scripts/
RUN npm run build && sh scripts/prune-runtime.sh

FROM node:24-bookworm-slim AS runtime
# Memory settings, the same as package.json's start script (docs/operating.md, "Memory"): glibc's malloc with
# one arena (what V8's compiler threads freed stays resident in an arena per thread otherwise) and
# one WebAssembly compilation task (V8 otherwise optimises the embedded database's code on every
# core at once, each with its own working memory), a young generation of at most 2 x 8 MB, and
# malloc's mmap threshold fixed at 256 KB (glibc otherwise raises its mmap and trim thresholds
# after the start-up compile frees a large block, and keeps ~50 MB of freed memory resident).
# Idle demo ~360 -> ~230 MB; no measurable cost in requests per second or CPU per request.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    MCP_DATA_DIR=/data/mcp \
    MALLOC_ARENA_MAX=1 \
    MALLOC_MMAP_THRESHOLD_=262144
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
# found by the migrator from dist/src/db (three levels up: the package root)
COPY --chown=node:node migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=40s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# exec form: node runs as PID 1 and gets SIGTERM directly; main.ts then shuts down gracefully
CMD ["node", "--wasm-num-compilation-tasks=1", "--max-semi-space-size=8", "--experimental-wasm-compilation-hints", "--no-wasm-dynamic-tiering", "dist/src/main.js", "serve"]
