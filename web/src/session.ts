import type { Client } from 'openapi-fetch';

import { ApiError } from './errors';
import type { components, paths } from './sdk';

/**
 * The dashboard's session (issue 13). The access JWT lives in memory only; the refresh
 * token is an HttpOnly cookie (`__Host-` under https, see src/auth/sessions/session-cookie.ts) that
 * no script can read. Every auth call says `X-Session-Mode: cookie`, which is also what
 * lets the server read that cookie (a cross-site form cannot send the header).
 */
const MODE = { 'X-Session-Mode': 'cookie' } as const;
/** Refresh this long before the JWT expires, so a request never leaves with a dying one. */
const MARGIN_MS = 30_000;

export type SignedIn = components['schemas']['LoginView'];
export type Registered = components['schemas']['RegisterView'];
type Pair = { accessToken: string; expiresIn: number };

/**
 * The server's marker cookie (src/auth/sessions/session-marker.ts, same name) is set and cleared
 * beside the HttpOnly refresh cookie. Without it there is no session to resume, so a
 * signed-out visit asks nothing (a refresh would only answer 401). Any cookie of that
 * name counts: a sibling host can add one, never hide the real one.
 */
const SESSION_MARKER = 'statichost_session';
function markerCookie(): boolean {
  return typeof document !== 'undefined' && document.cookie.split(';').some((pair) => pair.split('=')[0].trim() === SESSION_MARKER);
}

export interface SessionOptions {
  /** Whether a session may exist to resume (default: the marker cookie is there). */
  mayHaveSession?: () => boolean;
}

export type Session = ReturnType<typeof createSession>;

/**
 * The session's state and its auth calls, over `client`: the transport's typed client
 * without the session's own credentials (these calls are what obtain them).
 */
export function createSession(client: Client<paths>, { mayHaveSession = markerCookie }: SessionOptions = {}) {
  let token: string | null = null;
  let expiresAt = 0;
  let pending: Promise<string | null> | null = null;
  const endedListeners = new Set<() => void>();

  const keep = (pair: Pair): string => {
    token = pair.accessToken;
    expiresAt = Date.now() + pair.expiresIn * 1000;
    return token;
  };
  const clear = (): void => {
    token = null;
    expiresAt = 0;
  };
  /** The data of an auth call, or an ApiError with the service's message. */
  const unwrap = async <T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> => {
    const { data, error, response } = await pending;
    if (response.ok && error === undefined) return data as T;
    const body = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
    throw new ApiError(response.status, String(body.code ?? `http_${response.status}`), String(body.message ?? `The server answered ${response.status}`), body);
  };

  /**
   * A new access JWT from the refresh cookie, or null when there is no session. Refresh
   * tokens are single use and a reused one ends the session, so two tabs must never
   * refresh at once with the same cookie: a Web Lock shared by the tabs of this origin
   * serialises them (each waits, then sends the cookie the previous one set).
   */
  const refresh = (force = false): Promise<string | null> => {
    if (!force && token && Date.now() < expiresAt - MARGIN_MS) return Promise.resolve(token);
    if (!token && !mayHaveSession()) return Promise.resolve(null);
    pending ??= (async () => {
      const run = async () => {
        const { data, response } = await client.POST('/auth/refresh', { headers: MODE, body: {} });
        if (!response.ok || !data) {
          clear();
          return null;
        }
        return keep(data);
      };
      try {
        return typeof navigator !== 'undefined' && 'locks' in navigator ? await navigator.locks.request('statichost-session', run) : await run();
      } catch {
        return null;
      } finally {
        pending = null;
      }
    })();
    return pending;
  };

  /** The JWT to send now (refreshed first when close to expiry), or null when signed out. */
  const accessToken = async (): Promise<string | null> => {
    if (!token) return pending ?? null;
    if (Date.now() < expiresAt - MARGIN_MS) return token;
    return refresh(true);
  };

  return {
    refresh,
    clear,
    accessToken,
    has: (): boolean => token !== null,
    /** Called when the server no longer knows the session: listeners send the user to sign in. */
    ended(): void {
      clear();
      endedListeners.forEach((listener) => listener());
    },
    onEnded(listener: () => void): () => void {
      endedListeners.add(listener);
      return () => endedListeners.delete(listener);
    },
    async signIn(email: string, password: string): Promise<SignedIn> {
      const answer = await unwrap(client.POST('/auth/login', { headers: MODE, body: { email, password } }));
      keep(answer);
      return answer;
    },
    /**
     * The second step of a sign-in whose password answered 401 second_factor_required
     * (an ApiError whose body holds `challenge` and `methods`): the challenge with a TOTP
     * code, a recovery code or a passkey's WebAuthn response.
     */
    async signInSecondFactor(challenge: string, answer: { totp: string } | { recoveryCode: string } | { passkey: Record<string, unknown> }): Promise<SignedIn> {
      const answerBody = await unwrap(client.POST('/auth/login/second-factor', { headers: MODE, body: { challenge, ...answer } }));
      keep(answerBody);
      return answerBody;
    },
    async register(email: string, password: string, name: string): Promise<Registered> {
      const answer = await unwrap(client.POST('/auth/register', { headers: MODE, body: { email, password, name } }));
      keep(answer);
      return answer;
    },
    async signOut(): Promise<void> {
      const current = await accessToken();
      // Not retried after a refresh: the session is ending either way.
      if (current) await client.POST('/auth/logout', { headers: { ...MODE, Authorization: `Bearer ${current}` }, body: {} }).catch(() => undefined);
      clear();
    },
    /** A passwordless sign-in (issue 32): `response` is the browser's answer to POST /auth/passkeys/authentication-options. */
    async signInWithPasskey(response: components['schemas']['PasskeySignInDto']['response']): Promise<SignedIn> {
      const answer = await unwrap(client.POST('/auth/passkeys/authentication', { headers: MODE, body: { response } }));
      keep(answer);
      return answer;
    },
  };
}
