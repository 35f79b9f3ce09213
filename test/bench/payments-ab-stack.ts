/** What test/bench/payments-ab.ts needs of a checkout, so that A can come from another one. */
export { loadConfig } from '../../src/config.js';
export { buildApp } from '../../src/http/app.js';
export { createLogger } from '../../src/logger.js';
export { createRuntime } from '../../src/runtime.js';
export { createSaleItem } from '../helpers/items.js';
