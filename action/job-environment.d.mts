export function pushCredential(
  env: NodeJS.ProcessEnv,
  token: string,
  serverUrl: string,
): Record<string, string>;
export function ralphtoolEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export function ghEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
