import path from 'node:path';
import { findProgram } from '../agents/preflight.js';
import { reachOf, type Reach } from '../core/reach.js';

/**
 * Looks at how this ralphtool was started (`script`: the path node runs, argv[1]) and at
 * PATH, for the commands messages name (core/reach.ts).
 */
export function reachFrom(script: string | undefined, env: NodeJS.ProcessEnv, cwd: string): Reach {
  // npx and node_modules/.bin both run the script inside a node_modules folder. (npm's own
  // variables, npm_command=exec, are inherited by whatever npx started: they prove nothing.)
  const inNodeModules = (script ?? '').split(path.sep).includes('node_modules');
  return reachOf({
    ralphtoolOnPath: findProgram('ralphtool', env, cwd) !== null,
    viaPackageRunner: inNodeModules,
    openspecOnPath: findProgram('openspec', env, cwd) !== null,
    script: script === undefined ? null : path.resolve(script),
  });
}
