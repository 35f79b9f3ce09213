import { unsafe } from './types.js';

const SET_USER_ID = 0o4000;
const SET_GROUP_ID = 0o2000;

/**
 * Refuses the permission bits an extractor would turn into privilege: set-user-ID on anything, and
 * set-group-ID on a file. GNU tar extracting as root keeps both (`--same-permissions` is its
 * default for the superuser), as do `tar -p`, bsdtar with `-p` and Info-ZIP's `unzip -K`. Linux
 * ignores the bits on a script, and native executables are refused by the content rules, but a
 * format the kernel runs through `binfmt_misc` (a jar, a WebAssembly module, a foreign
 * architecture's binary under an emulator, as some containers register) honours them, and no
 * source archive needs them: defence in depth. Set-group-ID on a directory is left: it only makes
 * new files inherit the directory's group, and a tree packed from a shared-group folder carries it.
 */
export function checkModeBits(mode: number, isDir: boolean, path: string): void {
  if (mode & SET_USER_ID) throw unsafe('privileged_mode', path, 'set-user-ID bit');
  if (!isDir && mode & SET_GROUP_ID) throw unsafe('privileged_mode', path, 'set-group-ID bit');
}
