import { DOWNLOAD, runsWhatItFetches } from './code-rules.js';

/**
 * Code that runs when a project is installed or imported and reaches out: npm lifecycle scripts
 * that download, decode or run inline network code; the command expansions of a node-gyp file
 * (`binding.gyp`: `npm install` runs `node-gyp rebuild`, which runs them) judged as those scripts;
 * Python build files (`setup.py`, `hatch_build.py`) and module-level package code
 * (`__init__.py`), and Cargo build scripts (`build.rs`, run by `cargo build`), that fetch over the
 * network or run a download tool. Every line of these files is asked (they are few and small).
 */
export interface InstallHit {
  rule: string;
  kind: string;
}

export type InstallFile = 'npm_manifest' | 'python_build' | 'python_init' | 'gyp' | 'cargo_build';

/** Cheap first look: only these paths can be install-time files. */
const MAYBE_INSTALL = /(?:\.py|package\.json|\.gypi?|\/build\.rs|^build\.rs)$/;

export function installFileKind(path: string): InstallFile | undefined {
  if (!MAYBE_INSTALL.test(path)) return undefined;
  const inner = path.slice(path.lastIndexOf('!/') + 1);
  const base = inner.slice(inner.lastIndexOf('/') + 1);
  if (base === 'package.json') return 'npm_manifest';
  if (base.endsWith('.gyp') || base.endsWith('.gypi')) return 'gyp';
  if (base === 'build.rs') return 'cargo_build';
  if (base === 'setup.py' || base === 'hatch_build.py' || base === 'build_backend.py')
    return 'python_build';
  if (base === '__init__.py') return 'python_init';
  return undefined;
}

/** npm's lifecycle scripts that run on `npm install` of the package or of a git checkout. */
const NPM_HOOK =
  /"(preinstall|install|postinstall|prepare|prepublish|prepublishOnly|prepack|postpack|preuninstall|uninstall|postuninstall|dependencies)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

/** What a lifecycle script does that a reviewer refuses, or undefined for ordinary build steps. */
export function hookKind(cmd: string): string | undefined {
  if (/\/dev\/tcp\/|\bnc\s+(?:-\w+\s+)*-e\b|\bncat\b.*-e\b/.test(cmd)) return 'reverse_shell';
  if (
    /\b(?:powershell|pwsh)(?:\.exe)?\b/i.test(cmd) &&
    /\s-e(?:nc(?:odedcommand)?)?\b|\biex\b|invoke-expression|downloadstring|\biwr\b|invoke-webrequest|frombase64string/i.test(
      cmd,
    )
  )
    return 'powershell';
  if (DOWNLOAD.test(cmd)) return runsWhatItFetches(cmd) ? 'download_and_execute' : 'download';
  if (
    /\bbase64\s+(?:-d|--decode|-D)\b|\bxxd\s+-r\b|frombase64string|\batob\s*\(|['"]base64['"]|b64decode/i.test(
      cmd,
    )
  )
    return 'encoded_payload';
  if (
    /\b(?:node|bun|deno)\s+(?:[^|;&]*\s)?(?:-e|--eval|-p|--print)\b/.test(cmd) &&
    INLINE_NETWORK.test(cmd)
  )
    return 'inline_network_code';
  if (/\bpython[0-9.]*\s+(?:-\w+\s+)*-c\b/.test(cmd) && INLINE_NETWORK.test(cmd))
    return 'inline_network_code';
  if (/\beval\s+["'$`]/.test(cmd)) return 'eval';
  return undefined;
}
const INLINE_NETWORK =
  /https?:|\bfetch\b|require\(\\?["'](?:node:)?(?:https?|net|dns|tls|child_process)\\?["']\)|\bimport\(\\?["'](?:node:)?(?:https?|net|child_process)|urllib|requests|socket|subprocess|os\.system/;

/** Python build or import-time code that reaches out. */
const PY_NETWORK =
  /\b(?:urlopen|urlretrieve|requests\.(?:get|post|put|request|Session)|httpx\.(?:get|post|Client)|http\.client\.HTTPS?Connection|socket\.(?:socket|create_connection)|pycurl\.Curl|aiohttp\.ClientSession|ftplib\.FTP|smtplib\.SMTP)\s*\(/;
const PY_RUNS = /\b(?:os\.system|os\.popen|subprocess\.\w+|Popen|os\.exec\w*|os\.spawn\w*)\s*\(/;

/**
 * A GYP command expansion, in any phase (`<`, `>`, `^`), string or list (`@`): `<!(cmd)`, or
 * `<!pymod_do_main(module args)`, which imports `module` from the gyp file's folder and calls its
 * `DoMain` (gyp's input.py; any other name before the parenthesis is an error there).
 */
const GYP_COMMAND = /[<>^]!@?(pymod_do_main)?\(/;
/** Rust build-script code that reaches out: HTTP clients and raw sockets. */
const RS_NETWORK =
  /\b(?:reqwest::(?:blocking::)?(?:get|Client)|ureq::(?:get|post|agent|Agent)|attohttpc::(?:get|post)|minreq::(?:get|post)|TcpStream::connect|curl::easy::Easy)\b/;
/** Words one of the two above needs: a `.rs` file's bytes without any are not asked line by line. */
export const RS_MARKER =
  /reqwest|ureq|attohttpc|minreq|TcpStream|curl|wget|Invoke-WebRequest|iwr|certutil|bitsadmin/i;
/** A download tool named in a string literal (`Command::new("curl")`, `.arg("curl … | sh")`). */
const RS_DOWNLOAD_STRING = /"[^"]*\b(?:curl|wget|Invoke-WebRequest|iwr|certutil|bitsadmin)\b/i;

/**
 * A Cargo manifest's lines in order: the build script it names (`[package] build = "gen.rs"`, or
 * `package.build = …` at the top), as written; `build = false` and `true` name none.
 */
export class CargoManifestLines {
  private section = '';

  line(text: string): string | undefined {
    const t = text.trim();
    const header = /^\[\s*([A-Za-z0-9_.-]+)\s*\]/.exec(t);
    if (header) {
      this.section = header[1]!;
      return undefined;
    }
    const m = /^(package\s*\.\s*)?build\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/.exec(t);
    if (!m || this.section !== (m[1] ? '' : 'package')) return undefined;
    return m[2] ?? m[3];
  }
}

export interface HeldHit extends InstallHit {
  line: number;
}

/**
 * Cargo build scripts named by a manifest, across the archive's files in whatever order they come:
 * a `.rs` file not named `build.rs` is read as a build script and its first hit held; it is
 * reported once a manifest names the file, whether the manifest comes before it or after.
 */
export class CargoBuildScripts {
  private readonly named = new Set<string>();
  private readonly held = new Map<string, HeldHit>();

  /** A manifest names `path`: the hit held for it, if that file was already read. */
  name(path: string): HeldHit | undefined {
    this.named.add(path);
    const hit = this.held.get(path);
    this.held.delete(path);
    return hit;
  }

  isNamed(path: string): boolean {
    return this.named.has(path);
  }

  hold(path: string, hit: HeldHit): void {
    this.held.set(path, hit);
  }
}

export class FileInstall {
  constructor(private readonly kind: InstallFile) {}

  line(text: string, indented = false): InstallHit | undefined {
    if (this.kind === 'npm_manifest') {
      if (!text.includes('"')) return undefined;
      NPM_HOOK.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = NPM_HOOK.exec(text))) {
        let cmd = m[2]!;
        try {
          cmd = JSON.parse(`"${cmd}"`) as string;
        } catch {
          // keep the raw text
        }
        const kind = hookKind(cmd);
        if (kind) return { rule: 'install:npm_hook', kind: `${m[1]}_${kind}` };
      }
      return undefined;
    }
    const t = text.trimStart();
    if (this.kind === 'gyp') {
      const at = GYP_COMMAND.exec(text);
      if (!at || t.startsWith('#')) return undefined;
      // Python shipped beside the gyp file, run by `npm install`: no npm package needs it.
      if (at[1]) return { rule: 'install:gyp_command', kind: 'pymod_do_main' };
      const kind = hookKind(text.slice(at.index + at[0].length));
      return kind ? { rule: 'install:gyp_command', kind } : undefined;
    }
    if (this.kind === 'cargo_build') {
      if (t.startsWith('//')) return undefined;
      if (RS_NETWORK.test(text)) return { rule: 'install:cargo_build', kind: 'network' };
      if (RS_DOWNLOAD_STRING.test(text))
        return { rule: 'install:cargo_build', kind: 'download_command' };
      return undefined;
    }
    // Python: comments never count; __init__.py only at module level (unindented).
    if (t.startsWith('#')) return undefined;
    if (this.kind === 'python_init' && (indented || t.length !== text.length)) return undefined;
    const rule = this.kind === 'python_init' ? 'install:import_hook' : 'install:python_build';
    if (PY_NETWORK.test(text)) return { rule, kind: 'network' };
    if (PY_RUNS.test(text) && DOWNLOAD.test(text)) return { rule, kind: 'download_command' };
    return undefined;
  }
}
