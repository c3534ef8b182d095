// What the verify commands run, as files of the repository (docs/contract.md, "Tests the agent
// may not weaken"): an attempt that changes them changes its own judge. Pure: the gate passes
// the texts before and after. The list is kept short and documented: test-runner
// configurations, the scripts of package.json a command names, the parts of Python, Rust and
// JVM build files that choose or skip tests, and any file a verify command names.

/** A watched file's text at the checkpoint and after the attempt (null: it does not exist). */
export interface RunnerFileTexts {
  path: string;
  before: string | null;
  after: string | null;
}

/** Configurations whose whole text chooses what a JavaScript test runner runs. */
const RUNNER_CONFIG =
  /^(?:(?:vitest|jest|ava|playwright|cypress)\.config\.[cm]?[jt]s(?:on)?|vitest\.workspace\.[cm]?[jt]s(?:on)?|karma\.conf\.[cm]?js|\.mocharc(?:\.(?:[cm]?js|jsonc?|ya?ml))?|pytest\.ini)$/;

/** Top-level keys of package.json that configure a test runner. */
const PACKAGE_RUNNER_KEYS = ['jest', 'mocha', 'ava'] as const;

/** Build files of the JVM, and the words in them that skip tests or ignore their failures. */
const JVM_BUILD = /^(?:pom\.xml|build\.gradle(?:\.kts)?)$/;
const JVM_SKIPS =
  /\bskipTests\b|\bmaven\.test\.skip\b|\btestFailureIgnore\b|<excludes>|\bignoreFailures\b|\benabled\s*=\s*false\b|\bonlyIf\b/g;

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The repository paths the verify commands name (`node scripts/check.mjs`, `./test.sh`). */
export function pathsNamedBy(verify: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (const command of verify) {
    for (const word of words(command)) {
      if (word.startsWith('-') || word.startsWith('/') || !/[/.]/.test(word)) continue;
      const path = word.replace(/^(?:\.\/)+/, '');
      if (path !== '' && !path.startsWith('../') && /[^./]/.test(path)) named.add(path);
    }
  }
  return named;
}

/** Whether the gate needs a changed file's texts to judge the change of what verify runs. */
export function isRunnerFile(path: string, verify: readonly string[]): boolean {
  const name = baseName(path);
  if (/(?:^|\/)node_modules\//.test(path)) return false;
  return (
    RUNNER_CONFIG.test(name) ||
    JVM_BUILD.test(name) ||
    path === 'package.json' ||
    path === 'pyproject.toml' ||
    path === 'tox.ini' ||
    path === 'setup.cfg' ||
    name === 'Cargo.toml' ||
    pathsNamedBy(verify).has(path)
  );
}

/** What changed in what the verify commands run, one line per file, or null when nothing did. */
export function runnerChange(file: RunnerFileTexts, verify: readonly string[]): string | null {
  const { path, before, after } = file;
  if (before === after) return null;
  const name = baseName(path);
  if (pathsNamedBy(verify).has(path)) return `run by the verify command (${status(file)})`;
  if (RUNNER_CONFIG.test(name)) return `test runner configuration ${status(file)}`;
  if (path === 'package.json') return packageChange(before, after, verify);
  if (path === 'pyproject.toml') return sectionChange(file, (h) => /^\[tool\.pytest\b/.test(h));
  if (path === 'tox.ini') return sectionChange(file, (h) => h === '[pytest]');
  if (path === 'setup.cfg') return sectionChange(file, (h) => h === '[tool:pytest]');
  if (name === 'Cargo.toml') return cargoChange(before, after);
  if (JVM_BUILD.test(name)) {
    const count = (text: string | null): number => text?.match(JVM_SKIPS)?.length ?? 0;
    return count(after) > count(before) ? 'a setting that skips tests was added' : null;
  }
  return null;
}

function status({ before, after }: RunnerFileTexts): string {
  return before === null ? 'added' : after === null ? 'deleted' : 'changed';
}

/** The scripts the verify commands run through a package manager, with their pre/post hooks. */
export function scriptsNamed(
  verify: readonly string[],
  scripts: Readonly<Record<string, unknown>>,
): string[] {
  const names = new Set<string>();
  const visit = (name: string): void => {
    if (names.has(name)) return;
    names.add(name);
    const body = scripts[name];
    // A script that runs another one (`npm run lint && npm run unit`) runs that one too.
    if (typeof body === 'string') for (const inner of scriptsRunBy(body)) visit(inner);
  };
  for (const command of verify) for (const name of scriptsRunBy(command)) visit(name);
  const all = [...names];
  return [...new Set(all.flatMap((name) => [`pre${name}`, name, `post${name}`]))];
}

const MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Words of npm that run the `test` script; `start`, `stop` and `restart` run their own. */
const NPM_TEST = new Set(['test', 't', 'tst']);
const RUN = new Set(['run', 'run-script', 'rum', 'urn']);

/** The script names a command line runs: `npm test` → test, `pnpm run e2e` → e2e, `yarn lint` → lint. */
function scriptsRunBy(commandLine: string): string[] {
  const found: string[] = [];
  // Each command of a script's `&&` / `;` chain, and the command line itself.
  for (const part of commandLine.split(/&&|\|\||;|\|/)) {
    const ws = words(part).filter((w) => !w.startsWith('-'));
    const at = ws.findIndex((w) => MANAGERS.has(baseName(w)));
    if (at === -1) continue;
    const manager = baseName(ws[at] ?? '');
    const first = ws[at + 1];
    if (first === undefined) continue;
    if (RUN.has(first)) {
      const name = ws[at + 2];
      if (name !== undefined) found.push(name);
    } else if (NPM_TEST.has(first)) {
      // `bun test` is bun's own runner, not a script.
      if (manager !== 'bun') found.push('test');
    } else if (manager === 'npm') {
      if (first === 'start' || first === 'stop' || first === 'restart') found.push(first);
    } else if (manager === 'pnpm' || manager === 'yarn') {
      found.push(first);
    }
  }
  return found;
}

function packageChange(
  before: string | null,
  after: string | null,
  verify: readonly string[],
): string | null {
  const was = parseObject(before);
  const now = parseObject(after);
  if (was === null) return null;
  const scriptsOf = (pkg: Record<string, unknown> | null): Record<string, unknown> => {
    const scripts = pkg?.scripts;
    return typeof scripts === 'object' && scripts !== null
      ? (scripts as Record<string, unknown>)
      : {};
  };
  const changed: string[] = [];
  for (const name of scriptsNamed(verify, scriptsOf(was))) {
    if (!same(scriptsOf(was)[name], scriptsOf(now)[name])) changed.push(`scripts.${name}`);
  }
  for (const key of PACKAGE_RUNNER_KEYS) {
    if (!same(was[key], now?.[key])) changed.push(key);
  }
  return changed.length === 0 ? null : `${changed.join(', ')} changed`;
}

function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The lines of the INI/TOML sections whose header `wanted` accepts, as one text. */
export function sections(text: string | null, wanted: (header: string) => boolean): string {
  if (text === null) return '';
  const kept: string[] = [];
  let inside = false;
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*(\[\[?[^\]]*\]\]?)/.exec(line)?.[1];
    if (header !== undefined) inside = wanted(header.replace(/\s+/g, ''));
    if (inside && line.trim() !== '' && !/^\s*[#;]/.test(line)) kept.push(line.trim());
  }
  return kept.join('\n');
}

function sectionChange(file: RunnerFileTexts, wanted: (header: string) => boolean): string | null {
  const was = sections(file.before, wanted);
  const now = sections(file.after, wanted);
  return was === now ? null : 'its test section changed';
}

/** Cargo's `[[test]]` targets and the `test`, `harness` and `autotests` settings anywhere. */
function cargoChange(before: string | null, after: string | null): string | null {
  const testParts = (text: string | null): string =>
    [
      sections(text, (h) => h === '[[test]]'),
      ...(text ?? '')
        .split(/\r?\n/)
        .filter((line) => /^\s*(?:test|harness|autotests)\s*=/.test(line))
        .map((line) => line.trim()),
    ].join('\n');
  return testParts(before) === testParts(after) ? null : '`[[test]]` or `test =` settings changed';
}

/** A command line's words, quotes removed; good enough to find script and file names. */
function words(commandLine: string): string[] {
  return (commandLine.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) =>
    w.replace(/^["']|["']$/g, ''),
  );
}
