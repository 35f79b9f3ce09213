import { buildTemplate, findTemplate, TEMPLATE_DIR } from './template.js';

/**
 * `npm run build`'s last step: the migrated data directory first starts copy instead of running
 * initdb and the migrations (./template.ts). Kept when the one there was made by the installed
 * PGlite from the current migrations.
 */
const found = await findTemplate(TEMPLATE_DIR);
if (found.ok) {
  console.error(`database template: ${found.tarball} is current`);
} else {
  const started = Date.now();
  const tarball = await buildTemplate(TEMPLATE_DIR);
  console.error(
    `database template: wrote ${tarball} (initdb and migrations, ${Date.now() - started} ms)`,
  );
}
