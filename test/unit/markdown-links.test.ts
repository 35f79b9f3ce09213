import { describe, expect, it } from 'vitest';
import { neutraliseUnsafeLinks } from '../../src/domain/items/markdown.js';

/** Links in text clients may render as Markdown: only http(s), mailto and relative stay. */
describe('neutraliseUnsafeLinks', () => {
  it('keeps http, https, mailto, relative and anchor links as they are', () => {
    const text = [
      '[site](https://example.com/a?b=1#c) [old](http://example.com)',
      '[mail](mailto:dev@example.com) [doc](./docs/guide.md) [up](../x) [sec](#usage)',
      '![logo](assets/logo.png) [q](?page=2) [abs](/path/x:y)',
      '[ref]: https://example.com/ref',
      'Plain prose with data: and javascript: words is left alone.',
    ].join('\n');
    expect(neutraliseUnsafeLinks(text)).toBe(text);
  });

  it.each([
    ['[x](javascript:alert(1))', '[x](#)'],
    ['[x](JaVaScRiPt:alert(1))', '[x](#)'],
    ['![x](data:text/html;base64,PHNjcmlwdD4=)', '![x](#)'],
    ['[x](vbscript:msgbox(1))', '[x](#)'],
    ['[x]( javascript:alert(1))', '[x]( #)'],
    ['[x](java\\script:alert(1))', '[x](#)'],
    ['[x](javascript\\:alert(1))', '[x](#)'],
    ['[x](&amp;#106;avascript:alert(1))', '[x](#)'],
    ['[x](&lt;javascript:alert(1)&gt;)', '[x](#)'],
    ['[x](file:///etc/passwd)', '[x](#)'],
    ['[x](\njavascript:alert(1))', '[x](\n#)'],
    ['[ref]: javascript:alert(1)', '[ref]: #'],
    ['  [ref]: data:text/html,x "t"', '  [ref]: # "t"'],
    ['[ref]:\n  vbscript:x', '[ref]:\n  #'],
  ])('%j becomes %j', (input, out) => {
    expect(neutraliseUnsafeLinks(input)).toBe(out);
  });
});
