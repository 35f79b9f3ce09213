import type { CorpusCase } from '../types.js';
import { filesCase, hostileCase, nest, pack, baseProject } from '../build.js';

/**
 * Names that a buyer's filesystem cannot hold as written: Windows device names (any case, any
 * extension, as a directory too), trailing dots and spaces (Windows strips them, so two names
 * become one), characters Windows refuses or reads as a stream (`:`), and names that collide
 * after case folding or Unicode normalisation (NFC and NFKC) and so overwrite each other.
 */
const F = 'names';
const code = (n: string) => `export const from_${n.replace(/\W/g, '_')} = 1;\n`;
const reserved = (variant: string, path: string) =>
  filesCase(F, variant, 'reserved_name', (n) => ({ [path]: code(n) }));
const collide = (variant: string, check: string, a: string, b: string) =>
  filesCase(F, variant, check, (n) => ({ [a]: code(`${n}a`), [b]: code(`${n}b`) }));

export const cases: CorpusCase[] = [
  ...reserved('reserved-con', 'CON'),
  ...reserved('reserved-nul-extension', 'src/nul.txt'),
  ...reserved('reserved-aux-mixed-case', 'lib/Aux.js'),
  ...reserved('reserved-prn-double-extension', 'docs/prn.tar.gz.md'),
  ...reserved('reserved-com1', 'logs/COM1.log'),
  ...reserved('reserved-lpt9', 'lpt9'),
  ...reserved('reserved-com-superscript', 'out/com\u00b9.txt'),
  ...reserved('reserved-as-directory', 'src/con/index.ts'),
  ...reserved('reserved-trailing-space', 'src/NUL .ts'),
  ...filesCase(F, 'trailing-dot', 'trailing_dot_or_space', (n) => ({ 'src/index.ts.': code(n) })),
  ...filesCase(F, 'trailing-space', 'trailing_dot_or_space', (n) => ({ 'README.md ': code(n) })),
  ...filesCase(F, 'trailing-dot-directory', 'trailing_dot_or_space', (n) => ({
    'lib./util.js': code(n),
  })),
  ...filesCase(F, 'colon-stream', 'windows_invalid_character', (n) => ({
    'src/index.ts:hidden': code(n),
  })),
  ...filesCase(F, 'wildcard-character', 'windows_invalid_character', (n) => ({
    'scripts/run*.sh': 'echo run\n' + code(n),
  })),
  ...filesCase(F, 'pipe-character', 'windows_invalid_character', (n) => ({
    'docs/a|b.md': code(n),
  })),
  ...collide('case-collision', 'duplicate_name', 'src/Util.ts', 'src/util.ts'),
  ...collide('case-collision-directory', 'duplicate_name', 'Lib/a.ts', 'lib/a.ts'),
  ...collide('nfc-nfd-collision', 'duplicate_name', 'src/caf\u00e9.ts', 'src/cafe\u0301.ts'),
  ...collide('nfkc-ligature-collision', 'duplicate_name', 'src/\ufb01le.ts', 'src/file.ts'),
  ...collide('nfkc-fullwidth-collision', 'duplicate_name', 'src/\uff21pi.ts', 'src/api.ts'),
  ...collide('casefold-sharp-s', 'duplicate_name', 'src/stra\u00dfe.ts', 'src/STRASSE.ts'),
  ...collide('file-used-as-directory', 'file_used_as_directory', 'src/Config', 'src/config/a.ts'),
  hostileCase(F, 'reserved-nested', 'zip', 'reserved_name', async (n) =>
    nest('zip', n, 'vendor/win.tar.gz', await pack('tar.gz', { ...baseProject(n), 'AUX.h': '' })),
  ),
  hostileCase(F, 'collision-nested', 'tar.gz', 'duplicate_name', async (n) =>
    nest(
      'tar.gz',
      n,
      'vendor/mac.zip',
      await pack('zip', { ...baseProject(n), 'x/\u00c5.md': 'a\n', 'x/A\u030a.md': 'b\n' }),
    ),
  ),
];
