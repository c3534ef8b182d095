#!/usr/bin/env bash
# Builds the CLI when needed, then runs the loop-overhead benchmark. Needs node and git only
# (typescript from node_modules for the build); arguments go to bench/loop-overhead.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f dist/cli/main.js ] || [ -n "${BENCH_REBUILD:-}" ]; then
  node node_modules/typescript/bin/tsc -p tsconfig.build.json || [ -f dist/cli/main.js ]
fi
exec node bench/loop-overhead.mjs "$@"
