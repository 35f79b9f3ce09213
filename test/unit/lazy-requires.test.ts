import { build } from 'esbuild';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/build.js';
// the build's plugin (plain JavaScript beside scripts/build.mjs)
// @ts-expect-error no declaration file for the build script's module
import { lazyRequires } from '../../scripts/lazy-requires.mjs';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/**
 * Issue 25 (start time): the built-ins and the package a bundled dependency requires at its top
 * for a path a start never takes are stand-ins that load the real module at its first use
 * (scripts/lazy-requires.mjs). The packages bundled as `npm run build` bundles them, with the
 * plugin; each stand-in is then used for the path it stands in for, and must forward to the real
 * module: Fastify's HTTP/2 server, @fastify/swagger's YAML document, postgres.js's TLS connection.
 */
describe('the lazily required modules of the bundle', () => {
  it('are stand-ins in the bundle that forward to the real module at first use', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lazy-requires-'));
    dirs.push(dir);
    const entry = path.join(dir, 'entry.mjs');
    await writeFile(
      entry,
      `export { default as Fastify } from 'fastify';
export { default as swagger } from '@fastify/swagger';
export { default as postgres } from 'postgres';\n`,
    );
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [entry],
      outfile: path.join(dir, 'out.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node24',
      metafile: true,
      logLevel: 'silent',
      nodePaths: [path.join(ROOT, 'node_modules')],
      banner: {
        js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
      },
      plugins: [lazyRequires(ROOT)],
    });
    // every importer the plugin names takes the stand-in, not the module
    const imports = Object.entries(result.metafile.inputs).flatMap(([file, input]) =>
      input.imports.map((i) => `${file} ${i.path}`),
    );
    for (const [file, stand] of [
      ['node_modules/fastify/lib/server.js', 'lazy-require:node:http2'],
      ['node_modules/fastify/lib/server.js', 'lazy-require:node:https'],
      ['node_modules/postgres/src/connection.js', 'lazy-require:node:tls'],
      ['node_modules/@fastify/swagger/lib/spec/openapi/index.js', 'lazy-require:yaml'],
    ]) {
      expect(imports).toContain(`${file} ${stand}`);
    }
    // yaml's own code is reached through its stand-in only
    expect(imports.filter((i) => i.endsWith(' node_modules/yaml/dist/index.js'))).toEqual([
      'lazy-require:yaml node_modules/yaml/dist/index.js',
    ]);

    const bundle = (await import(pathToFileURL(path.join(dir, 'out.mjs')).href)) as {
      Fastify: typeof import('fastify').default;
      swagger: typeof import('@fastify/swagger').default;
      postgres: typeof import('postgres');
    };
    // the HTTP/2 server Fastify makes through the stand-in of node:http2
    const h2 = bundle.Fastify({ http2: true });
    h2.get('/', async () => ({ ok: true }));
    await h2.listen({ port: 0, host: '127.0.0.1' });
    expect(h2.server.constructor.name).toBe('Http2Server');
    await h2.close();
    // the YAML document @fastify/swagger writes through the stand-in of yaml
    const app = bundle.Fastify();
    await app.register(bundle.swagger, { openapi: { info: { title: 'lazy', version: '1' } } });
    app.get('/thing', async () => 'x');
    await app.ready();
    expect(app.swagger({ yaml: true })).toMatch(/^openapi: 3\.0\.3\n(.|\n)*title: lazy/);
    await app.close();
    // postgres.js's TLS connection through the stand-in of tls: a server that accepts the SSL
    // request ('S') and then hangs up; the handshake node:tls began fails as a socket error
    const server = createServer((socket) =>
      socket.once('data', () => {
        socket.write('S');
        setTimeout(() => socket.destroy(), 20);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const sql = bundle.postgres({
      host: '127.0.0.1',
      port,
      ssl: 'require',
      max: 1,
      connect_timeout: 5,
    });
    const failed = (await sql`select 1`.catch((e: unknown) => e)) as Error & { code?: string };
    await sql.end({ timeout: 1 }).catch(() => undefined);
    server.close();
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toBeInstanceOf(TypeError);
    expect(`${failed.code} ${failed.message}`).toMatch(/ECONNRESET|TLS|socket/i);
  }, 60_000);
});
