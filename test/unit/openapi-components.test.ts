import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';

// zod as the service has it, its JSON Schema conversion watched
const toJSONSchema = vi.hoisted(() => ({ calls: 0 }));
vi.mock('zod', async (importOriginal) => {
  const zod = await importOriginal<typeof import('zod')>();
  const z = {
    ...zod.z,
    toJSONSchema: (...args: Parameters<typeof zod.z.toJSONSchema>) => {
      toJSONSchema.calls++;
      return zod.z.toJSONSchema(...args);
    },
  };
  return { ...zod, z };
});

/**
 * Issue 25 (start time): the OpenAPI document's shared schemas (the 402 prompt, the error) are
 * converted from zod when the document is first asked for, not as the documentation plugin
 * registers at every start.
 */
describe('the OpenAPI components', () => {
  it('are converted at the first document, not at registration, and the document holds them', async () => {
    // a copy of the plugin that imports the watched zod (the suite's workers share modules)
    vi.resetModules();
    const { documentationPlugin } = await import('../../src/http/plugins/documentation.js');
    const app = Fastify();
    await app.register(documentationPlugin, {
      config: loadConfig({}),
      openapiComponents: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x' } },
      },
    });
    await app.ready();
    expect(toJSONSchema.calls).toBe(0);

    const doc = app.swagger() as { components: Record<string, Record<string, unknown>> };
    expect(toJSONSchema.calls).toBe(2);
    expect(Object.keys(doc.components.schemas!)).toEqual(
      expect.arrayContaining(['PaymentRequired', 'Error']),
    );
    expect(doc.components.schemas!.Error).toMatchObject({ type: 'object' });
    expect(doc.components.securitySchemes).toHaveProperty('apiKey');
    await app.close();
    expect(toJSONSchema.calls).toBe(2);
  });
});
