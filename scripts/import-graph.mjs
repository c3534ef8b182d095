#!/usr/bin/env node
// Prints which folders of src/ import which (with how many import statements), then the same
// for the feature folders inside a layer (src/run/loop/, …), and fails (exit 1) when an import
// breaks scripts/layers.mjs, the folders form a cycle, or docs/architecture.md does not name a
// file of src/.
// Usage: node scripts/import-graph.mjs [--dot]
import { readdirSync, readFileSync } from 'node:fs';
import console from 'node:console';
import { basename, dirname, join, relative, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { ALLOWED_IMPORTS, FEATURE_IMPORTS, LAYERS } from './layers.mjs';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const folderOf = (file) => relative(SRC, file).split('/')[0];

/** The feature folder of a file inside a layer with features ('.' for the layer's top), or null. */
const featureOf = (file) => {
  const parts = relative(SRC, file).split('/');
  if (FEATURE_IMPORTS[parts[0]] === undefined) return null;
  return parts.length > 2 ? parts[1] : '.';
};

const edges = new Map(); // "from -> to" → count
const featureEdges = new Map(); // "layer: from -> to" → count
const violations = [];
for (const file of sourceFiles(SRC)) {
  const from = folderOf(file);
  for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    const target = resolve(dirname(file), match[1]);
    if (!target.startsWith(SRC + '/')) continue; // the demo's project text, not an import
    const to = folderOf(target);
    const [fromFeature, toFeature] = [featureOf(file), featureOf(target)];
    if (to === from && fromFeature !== null && fromFeature !== toFeature) {
      const key = `${from}: ${fromFeature} -> ${toFeature}`;
      featureEdges.set(key, (featureEdges.get(key) ?? 0) + 1);
      const features = FEATURE_IMPORTS[from];
      if (features[fromFeature] === undefined) {
        violations.push(`src/${from}/${fromFeature}/ is not in scripts/layers.mjs FEATURE_IMPORTS`);
      } else if (!features[fromFeature].includes(toFeature)) {
        violations.push(
          `${relative(SRC, file)} imports ${match[1]} (${from}/${fromFeature} may not import ${from}/${toFeature})`,
        );
      }
    }
    if (to === from || !LAYERS.includes(to)) continue;
    const key = `${from} -> ${to}`;
    edges.set(key, (edges.get(key) ?? 0) + 1);
    if (!(ALLOWED_IMPORTS[from] ?? []).includes(to)) {
      violations.push(`${relative(SRC, file)} imports ${match[1]} (${from} may not import ${to})`);
    }
  }
}

const unknown = [...new Set(sourceFiles(SRC).map(folderOf))].filter(
  (f) => !LAYERS.includes(f) && !f.includes('.'),
);
for (const folder of unknown) violations.push(`src/${folder}/ is not in scripts/layers.mjs`);

// docs/architecture.md is the map: every file of src/ is named there, so a new one gets its line.
const map = readFileSync(resolve(SRC, '..', 'docs', 'architecture.md'), 'utf8');
for (const file of sourceFiles(SRC)) {
  const name = basename(file);
  if (!map.includes(`\`${name}\``) && !map.includes(`/${name}\``)) {
    violations.push(
      `src/${relative(SRC, file)} is not named in docs/architecture.md (add it to the map)`,
    );
  }
}

// A cycle between folders: depth-first search over the folder graph.
const next = new Map(LAYERS.map((l) => [l, []]));
for (const key of edges.keys()) {
  const [from, to] = key.split(' -> ');
  next.get(from)?.push(to);
}
const cycles = [];
const state = new Map();
const visit = (node, path) => {
  state.set(node, 'open');
  for (const to of next.get(node) ?? []) {
    if (state.get(to) === 'open') cycles.push([...path.slice(path.indexOf(to)), to].join(' -> '));
    else if (!state.has(to)) visit(to, [...path, to]);
  }
  state.set(node, 'done');
};
for (const layer of LAYERS) if (!state.has(layer)) visit(layer, [layer]);

const sorted = [...edges.entries()].sort(([a], [b]) => a.localeCompare(b));
if (process.argv.includes('--dot')) {
  console.log('digraph src {');
  for (const [key, n] of sorted) {
    const [from, to] = key.split(' -> ');
    console.log(`  "${from}" -> "${to}" [label=${n}];`);
  }
  console.log('}');
} else {
  for (const layer of LAYERS) {
    const out = sorted.filter(([key]) => key.startsWith(`${layer} -> `));
    const list = out.map(([key, n]) => `${key.split(' -> ')[1]} (${n})`).join(', ');
    console.log(`${layer.padEnd(10)} -> ${list || '(nothing)'}`);
  }
  for (const [layer, features] of Object.entries(FEATURE_IMPORTS)) {
    console.log(`\nthe features of ${layer}/ ('.' is what they share):`);
    for (const feature of Object.keys(features)) {
      const out = [...featureEdges.entries()]
        .filter(([key]) => key.startsWith(`${layer}: ${feature} -> `))
        .sort(([a], [b]) => a.localeCompare(b));
      const list = out.map(([key, n]) => `${key.split(' -> ')[1]} (${n})`).join(', ');
      console.log(`  ${feature.padEnd(10)} -> ${list || '(nothing)'}`);
    }
  }
}
for (const v of violations) console.error(`import-graph: ${v}`);
for (const c of cycles) console.error(`import-graph: cycle between folders: ${c}`);
process.exit(violations.length + cycles.length > 0 ? 1 : 0);
