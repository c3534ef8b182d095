import { describe, expect, it } from 'vitest';
import { agentEnvironment } from '../../src/core/agent-environment.js';

describe('the environment an agent gets', () => {
  it('holds no forge or CI runner credential, and everything else as given', () => {
    const given = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      ANTHROPIC_API_KEY: 'sk-ant-x',
      GH_TOKEN: 'ghs_x',
      GITHUB_TOKEN: 'ghs_y',
      ACTIONS_RUNTIME_TOKEN: 'rt',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token',
      CI_JOB_TOKEN: 'glcbt',
      SYSTEM_ACCESSTOKEN: 'azure',
      GITHUB_REPOSITORY: 'o/r',
    };
    const { env, removed } = agentEnvironment(given);
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      ANTHROPIC_API_KEY: 'sk-ant-x',
      GITHUB_REPOSITORY: 'o/r',
    });
    expect(removed.sort()).toEqual(
      [
        'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
        'ACTIONS_ID_TOKEN_REQUEST_URL',
        'ACTIONS_RUNTIME_TOKEN',
        'CI_JOB_TOKEN',
        'GH_TOKEN',
        'GITHUB_TOKEN',
        'SYSTEM_ACCESSTOKEN',
      ].sort(),
    );
    expect(given.GH_TOKEN).toBe('ghs_x'); // the caller's own is untouched
  });

  it('git configuration from the environment loses its credential entries, renumbered', () => {
    const { env } = agentEnvironment({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader',
      GIT_CONFIG_VALUE_0: 'AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3g=',
      GIT_CONFIG_KEY_1: 'core.autocrlf',
      GIT_CONFIG_VALUE_1: 'false',
      GIT_CONFIG_KEY_2: 'credential.helper',
      GIT_CONFIG_VALUE_2: 'store',
    });
    expect(env).toEqual({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.autocrlf',
      GIT_CONFIG_VALUE_0: 'false',
    });
    const none = agentEnvironment({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.extraHeader',
      GIT_CONFIG_VALUE_0: 'AUTHORIZATION: bearer x',
    });
    expect(none.env).toEqual({});
  });
});
