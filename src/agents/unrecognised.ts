import { CLAUDE_KNOWN_VERSION } from './claude-stream-types.js';
import { productName } from './programs.js';

/** The agent versions whose streams ralphtool's translators were written against. */
const KNOWN_VERSIONS: Readonly<Record<string, string>> = { claude: CLAUDE_KNOWN_VERSION };

/**
 * What to do about stream lines of a kind ralphtool does not know: they come from an agent newer
 * (or older) than ralphtool's translator, so upgrading ralphtool, or pinning the agent to a
 * version it knows, is the fix. `version` is the agent's own, when its stream said it.
 */
export function unrecognisedHint(agent: string, version?: string): string {
  const product = productName(agent);
  const known = KNOWN_VERSIONS[agent];
  const running = version === undefined ? product : `${product} ${version}`;
  const pin =
    known === undefined
      ? `pin ${product} to the version you used before`
      : `pin ${product} to ${known}, the version this ralphtool knows`;
  return `${running} printed lines this ralphtool does not know; they are skipped and the attempt goes on: if the agent's work is misread, upgrade ralphtool, or ${pin}`;
}
