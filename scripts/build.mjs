#!/usr/bin/env node
/**
 * The one build of the project, for every path that writes dist/ (`npm run build`, the tests'
 * test/helpers/build.ts, the Dockerfile through `npm run build`): TypeScript (tsconfig.build.json)
 * to dist/, the assets beside it (dist/assets: the console's files, the embedder's word vectors,
 * the demo projects, the agent guides; `npm start` reads them there), then the migrated database
 * template (dist/db-template). `--code`: the first two only.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, utimesSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const root = path.resolve(import.meta.dirname, '..');
const node = (...args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });

node(path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json');
const assets = path.join(root, 'dist/assets');
cpSync(path.join(root, 'assets'), assets, { recursive: true });
// a copy over an existing folder leaves its time: dated now, as fresh as the code beside it
utimesSync(assets, new Date(), new Date());
if (!process.argv.includes('--code')) node(path.join(root, 'dist/src/db/build-template.js'));
