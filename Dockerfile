# syntax=docker/dockerfile:1
# One image for every role: serve (default), worker, migrate, reindex, demo.
#   docker run -p 3000:3000 -v market-data:/data IMAGE
#   docker run IMAGE node dist/src/main.js worker

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY mcp ./mcp
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
# the migrator reads ../../migrations relative to dist/src/db
COPY --chown=node:node migrations ./dist/migrations
# word-vector table of the built-in embedder and the demo projects, read relative to dist/src
COPY --chown=node:node assets ./dist/assets
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=40s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# exec form: node runs as PID 1 and gets SIGTERM directly; main.ts then shuts down gracefully
CMD ["node", "dist/src/main.js", "serve"]
