#!/usr/bin/env node
// The GitHub Action's ralphtool: dist/cli/main.js and its dependencies bundled in
// action/dist/ (ralphtool.mjs, which a job runs, and its chunks), committed so that a job runs
// it at once (no `npm ci`, no build: the usual way of JavaScript actions). esbuild, a bundler
// made for exactly this, does it. Split per dynamic import (each command, the UI): a command
// loads its own code only, as the modules of dist/ do; one file compiled all of ralphtool (1.8
// MB) for any command, `--version` included (2.1× `node -e 0` against 1.1× split, list 4.0×
// against 2.3×: bench/README.md). `node scripts/bundle.mjs` writes it (after `npm run build`);
// `--check` says whether the committed files are the ones the sources give (the contributor
// tier checks it).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { build } from 'esbuild';

export const BUNDLE_DIR = 'action/dist';
export const BUNDLE = `${BUNDLE_DIR}/ralphtool.mjs`;

/**
 * The bundle's files, path (under action/dist/) to text, built from dist/ (deterministic: same
 * sources, same bytes; chunks are named by their content).
 */
export async function bundleFiles() {
  const result = await build({
    entryPoints: ['dist/cli/main.js'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'eof',
    splitting: true,
    write: false,
    outdir: BUNDLE_DIR,
    entryNames: 'ralphtool',
    // Beside ralphtool.mjs: a chunk finds ../../package.json (its version) as the entry does.
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    logLevel: 'silent',
    // The sandbox runtime runs binaries it ships beside its own files (vendor/seccomp): it cannot
    // be inlined. ralphtool imports it only for --sandbox; the job installs it beside the bundle
    // (action/sandbox-install.mjs).
    external: ['@anthropic-ai/sandbox-runtime'],
    // Bundled CommonJS dependencies call require(): give the ES module one.
    banner: {
      js: "import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);",
    },
    plugins: [
      {
        // Ink loads React's devtools only with DEV=true; the action never does.
        name: 'no-devtools',
        setup(b) {
          b.onResolve({ filter: /^react-devtools-core$/ }, () => ({
            path: 'react-devtools-core',
            namespace: 'no-devtools',
          }));
          b.onLoad({ filter: /.*/, namespace: 'no-devtools' }, () => ({
            contents: 'export default { initialize() {}, connectToDevTools() {} };',
          }));
        },
      },
    ],
  });
  return new Map(
    result.outputFiles.map((file) => [
      path.relative(path.resolve(BUNDLE_DIR), file.path).split(path.sep).join('/'),
      file.text,
    ]),
  );
}

/** The files now under action/dist/, path to text. */
export function committedFiles() {
  const files = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(path.join(BUNDLE_DIR, dir), { withFileTypes: true })) {
      const name = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.name === 'node_modules') continue; // the sandbox runtime a job installs
      if (entry.isDirectory()) walk(name);
      else files.set(name, readFileSync(path.join(BUNDLE_DIR, name), 'utf8'));
    }
  };
  walk('');
  return files;
}

/** What differs between two sets of files: the paths, sorted; empty when none. */
export function differences(a, b) {
  const names = new Set([...a.keys(), ...b.keys()]);
  return [...names].filter((name) => a.get(name) !== b.get(name)).sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fresh = await bundleFiles();
  if (process.argv.includes('--check')) {
    const stale = differences(committedFiles(), fresh);
    if (stale.length > 0) {
      process.stderr.write(
        `${BUNDLE_DIR}/ is not what the sources give (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', …' : ''}): run \`npm run bundle\`\n`,
      );
      process.exit(1);
    }
  } else {
    // Chunks are named by their content: the old ones would stay behind.
    rmSync(BUNDLE_DIR, { recursive: true, force: true });
    let size = 0;
    for (const [name, text] of fresh) {
      mkdirSync(path.dirname(path.join(BUNDLE_DIR, name)), { recursive: true });
      writeFileSync(path.join(BUNDLE_DIR, name), text);
      size += text.length;
    }
    process.stderr.write(
      `wrote ${BUNDLE} and ${String(fresh.size - 1)} chunks (${String(Math.round(size / 1024))} KB)\n`,
    );
  }
}
