import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * Server-rendered pages for people (the public catalogue and the operator console): Eta templates
 * under `assets/console/` (copied to `dist/assets/` by the build), every `<%= %>` escaped by Eta.
 * No script runs on any page; one same-origin style sheet.
 */
const VIEWS = fileURLToPath(new URL('../../../assets/console/', import.meta.url));

export const views = new Eta({ views: VIEWS, cache: true, autoEscape: true });

export const SITE_NAME = 'Code Artifact Marketplace';

/**
 * The pages' Content-Security-Policy: the API's (nothing but same-origin images, no framing) plus
 * the one style sheet and forms that post to this origin. No script source at all.
 */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; " +
  "base-uri 'none'; frame-ancestors 'none'";

export function sendPage(
  reply: FastifyReply,
  template: string,
  data: Record<string, unknown>,
  status = 200,
): FastifyReply {
  return reply
    .status(status)
    .header('Content-Security-Policy', PAGE_CSP)
    .header('Cache-Control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(views.render(template, { site: SITE_NAME, ...data }));
}

const STYLESHEET = readFileSync(path.join(VIEWS, 'console.css'), 'utf8');

/** The pages' one style sheet, public (the sign-in page needs it too). */
export function registerStylesheet(app: FastifyInstance): void {
  app.get('/console.css', { config: { auth: 'public' }, schema: { hide: true } }, (_req, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('Cache-Control', 'public, max-age=300')
      .send(STYLESHEET),
  );
}

/** One bar per point, scaled to the tallest, as the overview's SVG draws them. */
export function barChart(
  title: string,
  points: { label: string; value: number }[],
  size = { width: 1000, height: 150 },
) {
  const top = 16;
  const base = size.height - 14;
  const max = Math.max(0, ...points.map((p) => p.value));
  const step = points.length ? size.width / points.length : size.width;
  return {
    title,
    width: size.width,
    height: size.height,
    base,
    max: Math.round(max * 100) / 100,
    first: points[0]?.label ?? '',
    last: points.at(-1)?.label ?? '',
    bars: points.map((p, i) => {
      const h = max > 0 ? Math.round(((base - top) * p.value) / max) : 0;
      return {
        x: Math.round(i * step + 1),
        y: base - h,
        w: Math.max(1, Math.round(step - 2)),
        h,
        label: p.label,
        value: Math.round(p.value * 1e6) / 1e6,
      };
    }),
  };
}
