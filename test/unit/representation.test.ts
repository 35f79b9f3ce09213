import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { preferredType } from '../../src/http/representation.js';

/**
 * The media type a request's `Accept` prefers among those a route offers (the legal documents'
 * Markdown, HTML or plain text), as @fastify/accepts' `accepts().type()` answered before it.
 */
describe('preferredType', () => {
  it('the first offered without Accept; else by quality, then specificity, then our order; false for none', async () => {
    const app = Fastify();
    const offered = ['text/markdown', 'text/html', 'text/plain'] as const;
    app.get('/', async (request) => ({ type: preferredType(request, offered) }));
    const pick = async (accept?: string) =>
      (
        (
          await app.inject({ url: '/', headers: accept === undefined ? {} : { accept } })
        ).json() as {
          type: string | false;
        }
      ).type;
    expect(await pick(undefined)).toBe('text/markdown');
    expect(await pick('*/*')).toBe('text/markdown');
    expect(await pick('text/*')).toBe('text/markdown');
    expect(await pick('text/plain')).toBe('text/plain');
    expect(await pick('text/html,application/xhtml+xml,*/*;q=0.8')).toBe('text/html');
    expect(await pick('text/markdown;q=0.5, text/plain;q=0.9')).toBe('text/plain');
    expect(await pick('*/*;q=0.1, text/html')).toBe('text/html');
    expect(await pick('TEXT/HTML')).toBe('text/html');
    expect(await pick('image/png')).toBe(false);
    expect(await pick('text/plain;q=0')).toBe(false);
    await app.close();
  });
});
