import { buildTemplate, findTemplate, TEMPLATE_DIR } from './template.js';

/**
 * `npm run build`'s last step: the bare initialised data directory first starts copy instead of
 * running initdb (./template.ts). Kept when the one there was made by the installed PGlite.
 */
const found = await findTemplate(TEMPLATE_DIR);
if (found.ok) {
  console.error(`database template: ${found.tarball} is current`);
} else {
  const started = Date.now();
  const tarball = await buildTemplate(TEMPLATE_DIR);
  console.error(`database template: wrote ${tarball} (initdb, ${Date.now() - started} ms)`);
}
