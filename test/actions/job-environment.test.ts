import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { ghEnv, ralphtoolEnv } from '../../action/job-environment.mjs';
import { agentEnvironment } from '../../src/core/agent-environment.js';

const JOB = {
  PATH: '/usr/bin',
  ANTHROPIC_API_KEY: 'sk-ant-x',
  INPUT_TOKEN: 'ghs_job',
  INPUT_CHANGE: 'c',
  GH_TOKEN: 'ghs_job',
  GITHUB_SERVER_URL: 'https://github.example',
};

describe('what the job gives each program', () => {
  it('ralphtool: no input and no token variable, the push credential as git configuration', () => {
    const env = ralphtoolEnv(JOB);
    expect(Object.keys(env).filter((k) => k.startsWith('INPUT_') || k.endsWith('_TOKEN'))).toEqual(
      [],
    );
    expect(env.GIT_CONFIG_KEY_0).toBe('http.https://github.example/.extraheader');
    const header = env.GIT_CONFIG_VALUE_0 ?? '';
    expect(Buffer.from(header.replace('AUTHORIZATION: basic ', ''), 'base64').toString()).toBe(
      'x-access-token:ghs_job',
    );
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');
  });

  it('the agent that ralphtool starts from that environment sees none of it', () => {
    const agent = agentEnvironment(ralphtoolEnv(JOB)).env;
    expect(JSON.stringify(agent)).not.toContain('ghs_job');
    expect(JSON.stringify(agent)).not.toContain(
      Buffer.from('x-access-token:ghs_job').toString('base64'),
    );
    expect(agent.ANTHROPIC_API_KEY).toBe('sk-ant-x');
  });

  it('git configuration the caller has is kept, the credential appended after it', () => {
    const env = ralphtoolEnv({
      ...JOB,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.autocrlf',
      GIT_CONFIG_VALUE_0: 'false',
    });
    expect(env.GIT_CONFIG_COUNT).toBe('2');
    expect(env.GIT_CONFIG_KEY_0).toBe('core.autocrlf');
    expect(env.GIT_CONFIG_KEY_1).toBe('http.https://github.example/.extraheader');
  });

  it('gh: the token as GH_TOKEN, no inputs', () => {
    const env = ghEnv({ ...JOB, GH_TOKEN: undefined });
    expect(env.GH_TOKEN).toBe('ghs_job');
    expect(env.INPUT_CHANGE).toBeUndefined();
  });
});
