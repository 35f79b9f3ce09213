import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { neutraliseUnsafeLinks } from '../../src/domain/items/markdown.js';

/**
 * Script links that escaped the regex rewrite (review s28), judged by what a permissive renderer
 * (raw HTML on, bare URLs linked, as a chat client or README viewer may be) makes of the output.
 */
const renderer = new MarkdownIt({ html: true, linkify: true });
renderer.validateLink = () => true; // see every link, as a renderer that does not filter would

function expectInert(output: string) {
  const html = renderer.render(output);
  expect(html).not.toMatch(
    /(?:href|src|action|formaction|data|srcdoc)\s*=\s*["']?\s*(?:javascript|vbscript|data|file):/i,
  );
  expect(html).not.toMatch(/<(?:script|iframe|svg|math|object|embed|base|meta|form|style)\b/i);
  expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i);
}

describe('review s28: link neutraliser bypasses', () => {
  it('autolink <javascript:...>', () => {
    expect(neutraliseUnsafeLinks('see <javascript:alert(1)>')).not.toMatch(/javascript:/);
  });
  it('reference definition inside a blockquote', () => {
    expect(neutraliseUnsafeLinks('> [a]: javascript:alert(1)\n\n[click][a]')).not.toMatch(
      /javascript:/,
    );
  });
  it('reference definition inside a list item', () => {
    expect(neutraliseUnsafeLinks('- [a]: javascript:alert(1)\n\n[click][a]')).not.toMatch(
      /javascript:/,
    );
  });
  it('reference label with an escaped bracket', () => {
    expect(neutraliseUnsafeLinks('[a\\]b]: javascript:alert(1)\n\n[click][a\\]b]')).not.toMatch(
      /javascript:/,
    );
  });
  it('raw HTML anchor', () => {
    expect(neutraliseUnsafeLinks('<a href="javascript:alert(1)">x</a>')).not.toMatch(/javascript:/);
  });
});

describe('neutraliseUnsafeLinks, judged by a parser', () => {
  it.each([
    ['see <javascript:alert(1)>', 'see #'],
    ['> [a]: javascript:alert(1)\n\n[click][a]', '> [a]: #\n\n[click][a]'],
    ['- [a]: javascript:alert(1)\n\n[click][a]', '- [a]: #\n\n[click][a]'],
    ['1. x\n\n   > [a]:\n   > vbscript:x\n\n[c][a]', '1. x\n\n   > [a]:\n   > #\n\n[c][a]'],
    ['[a\\]b]: javascript:alert(1)\n\n[click][a\\]b]', '[a\\]b]: #\n\n[click][a\\]b]'],
    ['<a href="javascript:alert(1)">x</a>', '<a href="#">x</a>'],
    ['text\n[r]: vbscript:x\n~~~\n[r]: vbscript:x\n~~~', 'text\n[r]: #\n~~~\n[r]: vbscript:x\n~~~'],
    ['- <a href=javascript:alert(1)>x</a>', '- <a href="#">x</a>'],
    ['<img src="javascript:alert(1)">', '<img src="#">'],
    ['<img src=x onerror=alert(1)>', '<img src=x >'],
    ['<map><area href="&#106;avascript:alert(1)"></map>', '<map><area href="#"></map>'],
    [
      '<iframe src="https://evil.example"></iframe>',
      '&lt;iframe src="https://evil.example"></iframe>',
    ],
    [
      '<div>\n<a href="vbscript:x" onclick="y()">x</a>\n</div>',
      '<div>\n<a href="#" >x</a>\n</div>',
    ],
  ])('%j becomes %j', (input, out) => {
    expect(neutraliseUnsafeLinks(input)).toBe(out);
    expectInert(neutraliseUnsafeLinks(input));
  });

  it.each([
    '<svg><a xlink:href="javascript:alert(1)"><text y="20">x</text></a></svg>',
    '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>',
    '<object data="javascript:alert(1)"></object>',
    '<form action="javascript:alert(1)"><button>go</button></form>',
    '<button formaction="javascript:alert(1)">go</button>',
    '<base href="javascript:alert(1)//">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<details open ontoggle=alert(1)>x</details>',
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<a href="&#106avascript:alert(1)">x</a>',
    '<a\nhref="javascript:alert(1)">x</a>',
    '> <a\n> href="javascript:alert(1)">x</a>',
    '<script>alert(1)</script>',
    '<div title="\n\n[x](onmouseover=alert(1)//)',
    '<textarea><!--</textarea><img src=x onerror=alert(1)>-->',
    '<!-- x --!><img src=x onerror=alert(1)>',
    '[x]: <javascript:alert(1)>\n\n[x]',
    '[x](<javascript:alert(1)>)',
    '[x](javascript:alert((1)))',
    '| a |\n| - |\n| [x](java\\|script:alert(1)) |',
    '# t [x](javascript:alert(1)) #',
    '[x]\n\n- a\n\n  [x]: javascript&colon;alert(1)',
  ])('%j renders inert', (input) => {
    expectInert(neutraliseUnsafeLinks(input));
  });

  it('keeps honest Markdown, raw HTML and code as written', () => {
    const text = [
      '# Tool <small>v2</small>',
      '',
      '<p align="center"><img src="https://img.shields.io/badge/x-y-green" alt="b"></p>',
      '',
      '> Quote with [a link](https://example.com/a?b=1&c=2) and <https://example.com/auto>.',
      '',
      '- item [ref][r], <mailto:dev@example.com>, www.example.com, Array<T> and a < b',
      '- `<a href="javascript:alert(1)">` and `[x](javascript:alert(1))` in code spans',
      '',
      '[r]: ./docs/guide.md "Guide"',
      '',
      '```html',
      '<a href="javascript:void(0)" onclick="go()">x</a>',
      '<script>alert(1)</script>',
      '[x]: javascript:alert(1) in a fence',
      '```',
      '',
      '    [x]: javascript:alert(1) in indented code',
      '',
      '<details><summary>More</summary>',
      '',
      'Plain prose with data: and javascript: words.',
      '',
      '</details>',
    ].join('\n');
    expect(neutraliseUnsafeLinks(text)).toBe(text);
  });
});

describe('review s29: more bypasses and the CPU of a hostile text', () => {
  it.each([
    // a link right after another link or an image inside a link: no space between the two
    '[![img](https://example.com/b.png)](javascript:alert(1))',
    '[a](https://example.com)[b](javascript:alert(1))',
    '[a](https://example.com)![b](data:text/html,x)',
    // a pointy destination opening with a space or a tab, which the renderer trims
    '[x](< javascript:alert(1)>)',
    '[x](<\tjavascript:alert(1)>)',
    '[x]: < javascript:alert(1)>\n\n[x]',
  ])('%j', (input) => {
    const out = neutraliseUnsafeLinks(input);
    expectInert(out);
    expect(renderer.render(out)).not.toMatch(/javascript:|data:/);
  });
  it.each([
    ['entity-encoded scheme', '[x](&#106;avascript:alert(1))'],
    ['entity colon', '<a href="javascript&colon;alert(1)">x</a>'],
    ['tab entity in an attribute', '<a href="jav&Tab;ascript:alert(1)">x</a>'],
    ['svg data URL image', '![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)'],
    ['mixed-case vbscript', '[x](VbScRiPt:msgbox(1))'],
    ['definition twice', '[a]: https://example.com\n[a]: javascript:alert(1)\n\n[c][a]'],
    ['definition in a comment', '<!--\n[a]: javascript:alert(1)\n-->\n[c][a]'],
    ['image in a script link', '[![i](javascript:alert(1))](https://example.com)'],
  ])('%s stays inert (judged already)', (_name, input) => {
    expectInert(neutraliseUnsafeLinks(input));
  });
  it('64 kB of hostile links and tags, repeated or each different, is made inert', () => {
    // the time it takes is measured by `npx tsx test/bench/markdown.ts worst` (linear since s40)
    const units: Array<(i: number) => string> = [
      () => '<a href="javascript:1">',
      () => '[x](javascript:a) <b onclick=1> ![y](data:x) ',
      () => '<img src=x onerror=1>',
      () => '[x](javascript:a) ',
      () => '[a](b)',
      (i) => `[x](javascript:${i}) <b onclick=${i}> ![y](data:${i}) `,
      (i) => `- <a href="javascript:${i}">x</a>\n`,
    ];
    for (const unit of units) {
      let text = '';
      for (let i = 0; text.length < 65536; i++) text += unit(i);
      expectInert(neutraliseUnsafeLinks(text.slice(0, 65536)));
    }
  });
  it('each unsafe destination and tag is rewritten where the parser found it', () => {
    // not every occurrence of its text in the paragraph: a code span quoting it stays as written
    expect(neutraliseUnsafeLinks('[x](javascript:alert(1)) runs `javascript:alert(1)`')).toBe(
      '[x](#) runs `javascript:alert(1)`',
    );
    expect(
      neutraliseUnsafeLinks(
        '> a <img src=x onerror=alert(1)> is\n> `<img src=x onerror=alert(1)>`',
      ),
    ).toBe('> a <img src=x > is\n> `<img src=x onerror=alert(1)>`');
    // a heading's content does not end where its line does: searched for in its block
    expect(neutraliseUnsafeLinks('# t [x](javascript:alert(1)) #')).toBe('# t [x](#) #');
    // in a table cell (no lines of its own: its row is searched), header cells too
    expect(
      neutraliseUnsafeLinks(
        '| [h](vbscript:x) | b |\n| - | - |\n| [x](javascript:alert(1)) | <img src=x onerror=1> ok |',
      ),
    ).toBe('| [h](#) | b |\n| - | - |\n| [x](#) | <img src=x > ok |');
    expect(neutraliseUnsafeLinks('a | b\n- | -\nc | d [y](javascript:1) e')).toBe(
      'a | b\n- | -\nc | d [y](#) e',
    );
    // inside an image's description (parsed on its own) too, nested ones included
    expect(neutraliseUnsafeLinks('![a [x](javascript:alert(1))](y) `javascript:alert(1)`')).toBe(
      '![a [x](#)](y) `javascript:alert(1)`',
    );
    expect(neutraliseUnsafeLinks('![a ![b [x](javascript:1)](y) <b onclick=2>](z)\r\nc')).toBe(
      '![a ![b [x](#)](y) <b >](z)\nc',
    );
    // however many: each rewritten where it is, none left to the escape (which shows no link)
    const images = Array.from({ length: 300 }, (_v, i) => `![[x](javascript:${i})](y)`);
    expect(neutraliseUnsafeLinks(images.join(' '))).toBe(
      images.map(() => '![[x](#)](y)').join(' '),
    );
    // past 64 distinct texts searched for, the rest is left to the escape: still inert
    const many = Array.from({ length: 100 }, (_v, i) => `[x](javascript:${i})`).join(' ');
    expectInert(neutraliseUnsafeLinks(`# ${many} #`));
  });
});
