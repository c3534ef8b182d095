import { seconds } from './notify-program.js';

export interface NotifyPost {
  /** The `--notify-url`; shown only as its host: its path or user part may carry a token. */
  url: string;
  /** The event as JSON. */
  body: string;
  /** Limit for each try. */
  timeoutMs: number;
  /** Pause before the one retry. */
  retryDelayMs?: number;
}

/** One try: delivered, or why not and whether a second try may help. */
type Try = { ok: true } | { ok: false; why: string; retry: boolean };

const RETRY_DELAY_MS = 1_000;
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * POSTs one event to a `--notify-url` (content-type application/json), each try bounded by the
 * time limit, with one retry after a network error, a timeout or a 5xx answer (a 4xx says the
 * request itself is wrong: sending it again cannot help). Never throws: resolves to null when
 * delivered, else to one line naming the host only.
 */
export async function postNotification(post: NotifyPost): Promise<string | null> {
  let target: { url: URL; authorization: string | null };
  try {
    target = withoutCredentials(new URL(post.url));
  } catch {
    return 'not a valid URL';
  }
  const host = target.url.host;
  const first = await tryPost(target, post);
  if (first.ok) return null;
  if (!first.retry) return `${host}: ${first.why}`;
  await new Promise((resolve) => setTimeout(resolve, post.retryDelayMs ?? RETRY_DELAY_MS));
  const second = await tryPost(target, post);
  if (second.ok) return null;
  return `${host}: ${first.why}, then after a retry ${second.why}`;
}

/** Redirects followed before a delivery is given up. */
const MAX_REDIRECTS = 5;

async function tryPost(
  target: { url: URL; authorization: string | null },
  post: NotifyPost,
): Promise<Try> {
  const timeout = AbortSignal.timeout(post.timeoutMs);
  try {
    // Redirects are followed by hand, the POST and its body kept at every hop: fetch would turn
    // a 301, 302 or 303 into a GET without the event, and the 2xx of that GET is no delivery.
    let url = target.url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      // The credentials of the URL the user gave go to its own origin only.
      const authorization = url.origin === target.url.origin ? target.authorization : null;
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'ralphtool',
          ...(authorization === null ? {} : { authorization }),
        },
        body: post.body,
        signal: timeout,
        redirect: 'manual',
      });
      // The answer is not used, but it is read so that the connection is let go.
      await response.arrayBuffer();
      if (response.ok) return { ok: true };
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status)) {
        return { ok: false, why: `HTTP ${response.status}`, retry: response.status >= 500 };
      }
      if (location === null) {
        return { ok: false, why: `HTTP ${response.status} without a Location`, retry: false };
      }
      const next = URL.canParse(location, url.href) ? new URL(location, url) : null;
      if (next === null) {
        return {
          ok: false,
          why: `HTTP ${response.status} to a Location that is no URL`,
          retry: false,
        };
      }
      url = next;
    }
    return { ok: false, why: `more than ${MAX_REDIRECTS} redirects`, retry: false };
  } catch (error) {
    if (timeout.aborted) {
      return { ok: false, why: `no answer within ${seconds(post.timeoutMs)}`, retry: true };
    }
    return { ok: false, why: `could not connect (${networkCode(error)})`, retry: true };
  }
}

/**
 * fetch refuses a URL with `user:password@`: that part becomes basic authentication (as curl
 * does), so a webhook protected that way (ntfy's access tokens, say) works as given.
 */
function withoutCredentials(url: URL): { url: URL; authorization: string | null } {
  if (url.username === '' && url.password === '') return { url, authorization: null };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  const token = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
  return { url: bare, authorization: `Basic ${token}` };
}

/**
 * ECONNREFUSED, ENOTFOUND, "bad port"…: fetch's own message says only "fetch failed", its cause
 * says why (a code, else a short message that names no URL).
 */
function networkCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string' && cause.message.length <= 80) {
    return cause.message;
  }
  return 'network error';
}
