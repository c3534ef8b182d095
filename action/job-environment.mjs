// What the job gives each program it starts: ralphtool gets the push credential as git
// configuration in its environment (its own git authenticates with it; ralphtool never passes
// it on to the agent), `gh` gets the token, and nothing else gets either. Pure.
import { Buffer } from 'node:buffer';

/** Variables that carry the token into the job; none of them goes to ralphtool. */
const TOKENS = ['INPUT_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'];

/**
 * git configuration, through the environment, that sends `token` to `serverUrl` the way
 * actions/checkout does (an `http.<server>/.extraheader`), appended to any the caller has.
 * @param {NodeJS.ProcessEnv} env
 * @param {string} token
 * @param {string} serverUrl
 * @returns {Record<string, string>}
 */
export function pushCredential(env, token, serverUrl) {
  const count = Number(env.GIT_CONFIG_COUNT ?? '0') || 0;
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return {
    GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${String(count)}`]: `http.${serverUrl.replace(/\/+$/, '')}/.extraheader`,
    [`GIT_CONFIG_VALUE_${String(count)}`]: `AUTHORIZATION: basic ${basic}`,
  };
}

/**
 * The environment of ralphtool (and of the job's own git): the job's, without the action's
 * inputs and tokens, with the push credential when there is a token.
 * @param {NodeJS.ProcessEnv} env
 * @returns {NodeJS.ProcessEnv}
 */
export function ralphtoolEnv(env) {
  const out = Object.fromEntries(
    Object.entries(env).filter(([name]) => !name.startsWith('INPUT_') && !TOKENS.includes(name)),
  );
  const token = tokenOf(env);
  if (token === '') return { ...out, GIT_TERMINAL_PROMPT: '0' };
  return {
    ...out,
    GIT_TERMINAL_PROMPT: '0',
    ...pushCredential(out, token, env.GITHUB_SERVER_URL || 'https://github.com'),
  };
}

/**
 * The environment of `gh`: the job's without the inputs, with the token as GH_TOKEN.
 * @param {NodeJS.ProcessEnv} env
 * @returns {NodeJS.ProcessEnv}
 */
export function ghEnv(env) {
  const out = Object.fromEntries(
    Object.entries(env).filter(([name]) => !name.startsWith('INPUT_')),
  );
  const token = tokenOf(env);
  return token === '' ? out : { ...out, GH_TOKEN: token };
}

/** @param {NodeJS.ProcessEnv} env */
function tokenOf(env) {
  return env.INPUT_TOKEN || env.GH_TOKEN || env.GITHUB_TOKEN || '';
}
