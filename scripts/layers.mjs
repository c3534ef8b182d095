// The folders of src/ and what each may import (docs/architecture.md, "Layers").
// One table for both ESLint's no-restricted-imports and scripts/import-graph.mjs, so the rule
// that keeps the shape and the command that prints it cannot disagree.

/** @type {Record<string, readonly string[]>} */
export const ALLOWED_IMPORTS = {
  core: [],
  format: ['core'],
  openspec: ['core'],
  process: ['core'],
  git: ['core', 'process'],
  checkpoint: ['core', 'git', 'process'],
  agents: ['core', 'format', 'process'],
  remote: ['checkpoint', 'core', 'git', 'process'],
  run: ['agents', 'checkpoint', 'core', 'format', 'git', 'openspec', 'process', 'remote'],
  ui: ['core', 'format'],
  demo: ['core', 'format', 'git', 'process'],
  doctor: ['agents', 'checkpoint', 'core', 'format', 'git', 'openspec', 'process', 'remote', 'run'],
  cli: [
    'agents',
    'checkpoint',
    'core',
    'demo',
    'doctor',
    'format',
    'git',
    'openspec',
    'process',
    'remote',
    'run',
    'ui',
  ],
};

export const LAYERS = Object.keys(ALLOWED_IMPORTS);

/**
 * The feature folders inside a layer, and which of them each may import ('.' is the layer's own
 * top folder: what its features share). `npm run graph` prints their graph and fails on an
 * import this table does not allow (docs/architecture.md, "The folders of `src/`").
 * @type {Record<string, Record<string, readonly string[]>>}
 */
export const FEATURE_IMPORTS = {
  run: {
    '.': [],
    unattended: ['.'],
    loop: ['.', 'unattended'],
    remote: ['.'],
    status: ['.', 'remote'],
    launch: ['.', 'loop', 'remote', 'unattended'],
    many: ['.', 'launch', 'status'],
    worker: ['.', 'launch', 'remote'],
  },
};
