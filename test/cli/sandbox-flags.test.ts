import { describe, expect, it } from 'vitest';
import { sandboxIntentGiven, sandboxOptions } from '../../src/cli/sandbox-flags.js';
import { mergeSettings } from '../../src/cli/settings/merge.js';
import { parseSettingsFile } from '../../src/cli/settings/settings-file.js';
import { UsageError } from '../../src/core/errors.js';

const repo = (text: string) => parseSettingsFile(text, '/r/.ralphtool/config.yaml', 'repository');

describe('the sandbox flags', () => {
  it('default to no sandbox', () => {
    expect(sandboxOptions({})).toEqual({ sandbox: false, allowHosts: [], sandboxDenyRead: [] });
  });

  it('take --sandbox, --no-sandbox, hosts and paths', () => {
    expect(
      sandboxOptions({
        sandbox: true,
        allowHost: ['registry.npmjs.org', '127.0.0.1:8080'],
        sandboxDenyRead: ['~/.config/mine', '/srv/secrets'],
      }),
    ).toEqual({
      sandbox: true,
      allowHosts: ['registry.npmjs.org', '127.0.0.1:8080'],
      sandboxDenyRead: ['~/.config/mine', '/srv/secrets'],
    });
    expect(sandboxOptions({ sandbox: false }).sandbox).toBe(false);
    expect(sandboxOptions({ sandbox: 'on' }).sandbox).toBe(true);
    expect(sandboxOptions({ sandbox: 'off' }).sandbox).toBe(false);
  });

  it('refuse a host that is none, a relative path and a switch that is neither on nor off (exit 2)', () => {
    for (const flags of [
      { allowHost: ['https://registry.npmjs.org'] },
      { sandboxDenyRead: ['.ssh'] },
      { sandbox: 'yes' },
    ]) {
      expect(() => sandboxOptions(flags)).toThrow(UsageError);
    }
    expect(() => sandboxOptions({ allowHost: ['a/b'] })).toThrow(
      /--allow-host: "a\/b" is not a host/,
    );
  });

  it('say which parts of the intent they give (a resume keeps the rest)', () => {
    const given = (flags: Parameters<typeof sandboxIntentGiven>[0]) =>
      sandboxIntentGiven(flags)
        .filter(([, yes]) => yes)
        .map(([key]) => key);
    expect(given({})).toEqual([]);
    expect(given({ sandbox: false })).toEqual(['sandbox']);
    expect(given({ allowHost: ['x.org'] })).toEqual(['allowHosts']);
  });

  it('the settings file’s `sandbox: on` gives way to --no-sandbox, and stands without a flag', () => {
    const file = repo('sandbox: on\nallow-host: [registry.npmjs.org]');
    expect(mergeSettings({}, [file], 'start').flags).toEqual({
      sandbox: 'on',
      allowHost: ['registry.npmjs.org'],
    });
    expect(mergeSettings({ sandbox: false }, [file], 'start').flags.sandbox).toBe('off');
    expect(() => repo('sandbox: maybe')).toThrow(/sandbox/);
    expect(() => repo('allow-host: [http://x]')).toThrow(/allow-host/);
  });
});
