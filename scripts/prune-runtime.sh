#!/bin/sh
# What the image keeps of an installed and built tree: dev dependencies go, and so does what is
# never read at run time. The one list of it: the Dockerfile's build stage runs this after
# `npm run build`, and `npm run image:check` runs it when it reproduces the image without Docker.
set -eu
npm prune --omit=dev --no-audit --no-fund
# typescript stays after the prune as an optional peer of viem
rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver
# source maps and type declarations of dependencies are never read at run time
find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete
find dist -name '*.map' -delete
