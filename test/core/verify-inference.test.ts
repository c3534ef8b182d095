import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toRunOptions } from '../../src/cli/run-flags.js';
import { createUiController } from '../../src/cli/ui-controller.js';
import {
  inferVerifyCommands,
  VERIFY_MARKER_FILES,
  verifyHint,
} from '../../src/core/verify-inference.js';
import { stories } from '../support/fake-agent.js';
import { makeChangeRepo } from '../support/temp-repo.js';

const infer = (...files: string[]): string[] => inferVerifyCommands(new Set(files));

describe('the test commands suggested from a project’s files', () => {
  it('runs package.json’s test script with the package manager its lockfile belongs to', () => {
    expect(infer('package.json', 'pnpm-lock.yaml')).toEqual(['pnpm test']);
    expect(infer('package.json', 'yarn.lock')).toEqual(['yarn test']);
    // `bun test` is Bun's own runner: the project's script is `bun run test`.
    expect(infer('package.json', 'bun.lockb')).toEqual(['bun run test']);
    expect(infer('package.json', 'bun.lock')).toEqual(['bun run test']);
    expect(infer('package.json', 'package-lock.json')).toEqual(['npm test']);
    expect(infer('package.json', 'npm-shrinkwrap.json')).toEqual(['npm test']);
    expect(infer('package.json')).toEqual(['npm test']);
  });

  it('suggests no JavaScript command for a lockfile without package.json', () => {
    expect(infer('yarn.lock')).toEqual([]);
  });

  it('suggests each ecosystem’s own command, never npm’s for a project without package.json', () => {
    expect(infer('Cargo.toml')).toEqual(['cargo test']);
    expect(infer('go.mod')).toEqual(['go test ./...']);
    expect(infer('pyproject.toml')).toEqual(['pytest']);
    expect(infer('Cargo.toml', 'package.json', 'yarn.lock')).toEqual(['yarn test', 'cargo test']);
  });

  it('asks the caller to look for every lockfile', () => {
    for (const file of [
      'pnpm-lock.yaml',
      'yarn.lock',
      'bun.lock',
      'bun.lockb',
      'package-lock.json',
    ]) {
      expect(VERIFY_MARKER_FILES).toContain(file);
    }
  });

  it('names the first suggested command in the hint, or a placeholder', () => {
    expect(verifyHint(['cargo test', 'make test'])).toBe(
      'add --verify "cargo test" to check each story',
    );
    expect(verifyHint([])).toBe('add --verify "<your test command>" to check each story');
  });
});

describe('the UI’s verify hint on a real project', () => {
  it('suggests the project’s own command: cargo for a Rust project, yarn for a yarn one', () => {
    const rust = makeChangeRepo('add-x', stories(1), { 'Cargo.toml': '[package]\nname = "x"\n' });
    const yarn = makeChangeRepo('add-x', stories(1), {
      'package.json': '{"scripts":{"test":"node --test"}}\n',
      'yarn.lock': '',
    });
    try {
      const options = toRunOptions({}, false);
      // From a subdirectory too: the project's files are at the top, beside openspec/.
      const sub = path.join(rust.dir, 'openspec', 'changes');
      expect(createUiController(sub, options, {}).runOptions.suggestedVerify).toEqual([
        'cargo test',
      ]);
      expect(createUiController(yarn.dir, options, {}).runOptions.suggestedVerify).toEqual([
        'yarn test',
      ]);
    } finally {
      rust.remove();
      yarn.remove();
    }
  });
});
