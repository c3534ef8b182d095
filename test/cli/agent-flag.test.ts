// `--agent`: the names it takes, gemini among them, and the mistakes refused as usage errors.
import { describe, expect, it } from 'vitest';
import { toRunOptions } from '../../src/cli/run-flags.js';
import { UsageError } from '../../src/core/errors.js';

describe('--agent', () => {
  it('takes gemini, with --model passed on', () => {
    expect(toRunOptions({ agent: 'gemini', model: 'gemini-2.5-pro' }, false)).toMatchObject({
      agent: 'gemini',
      model: 'gemini-2.5-pro',
      agentCommand: null,
    });
  });

  it('names every agent when the name is unknown', () => {
    expect(() => toRunOptions({ agent: 'gemeni' }, false)).toThrow(
      new UsageError('--agent: "gemeni" is not one of claude, codex, opencode, gemini, command'),
    );
  });

  it('refuses --agent-command with --agent gemini', () => {
    expect(() => toRunOptions({ agent: 'gemini', agentCommand: './a.sh' }, false)).toThrow(
      '--agent-command is only for --agent command (got --agent gemini)',
    );
  });
});
