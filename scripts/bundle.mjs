#!/usr/bin/env node
// The GitHub Action's ralphtool: dist/cli/main.js and its dependencies in one file,
// action/dist/ralphtool.mjs, committed so that a job runs it at once (no `npm ci`, no build:
// the usual way of JavaScript actions). esbuild, a bundler made for exactly this, does it.
// `node scripts/bundle.mjs` writes it (after `npm run build`); `--check` says whether the
// committed file is the one the sources give (the contributor tier checks it).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { build } from 'esbuild';

export const BUNDLE = 'action/dist/ralphtool.mjs';

/** The bundle's text, built from dist/ (deterministic: same sources, same bytes). */
export async function bundleText() {
  const result = await build({
    entryPoints: ['dist/cli/main.js'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'eof',
    write: false,
    outfile: BUNDLE,
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
  return result.outputFiles[0].text;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await bundleText();
  if (process.argv.includes('--check')) {
    const committed = readFileSync(BUNDLE, 'utf8');
    if (committed !== text) {
      process.stderr.write(`${BUNDLE} is not what the sources give: run \`npm run bundle\`\n`);
      process.exit(1);
    }
  } else {
    mkdirSync(path.dirname(BUNDLE), { recursive: true });
    writeFileSync(BUNDLE, text);
    process.stderr.write(`wrote ${BUNDLE} (${String(Math.round(text.length / 1024))} KB)\n`);
  }
}
