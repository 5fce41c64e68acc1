import type { components } from '../../packages/sdk/generated/schema';
import { ApiError } from './errors';

/**
 * The dashboard's session (issue 13). The access JWT lives in this module's memory
 * only; the refresh token is an HttpOnly cookie (`__Host-` under https, see src/auth/session-cookie.ts) that no script can read.
 * Every auth call says `X-Session-Mode: cookie`, which is also what lets the server
 * read that cookie (a cross-site form cannot send the header).
 */
const MODE = { 'X-Session-Mode': 'cookie', 'Content-Type': 'application/json' } as const;
/** Refresh this long before the JWT expires, so a request never leaves with a dying one. */
const MARGIN_MS = 30_000;

let token: string | null = null;
let expiresAt = 0;
let pending: Promise<string | null> | null = null;
const endedListeners = new Set<() => void>();

type Pair = { accessToken: string; expiresIn: number };

function keep(pair: Pair): string {
  token = pair.accessToken;
  expiresAt = Date.now() + pair.expiresIn * 1000;
  return token;
}

export function clearSession(): void {
  token = null;
  expiresAt = 0;
}

/** Called when the server no longer knows the session: listeners send the user to sign in. */
export function sessionEnded(): void {
  clearSession();
  endedListeners.forEach((listener) => listener());
}

export function onSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}

export function hasSession(): boolean {
  return token !== null;
}

/**
 * The server's marker cookie (src/auth/session-marker.ts, same name) is set and cleared
 * beside the HttpOnly refresh cookie. Without it there is no session to resume, so a
 * signed-out visit asks nothing (a refresh would only answer 401). Any cookie of that
 * name counts: a sibling host can add one, never hide the real one.
 */
const SESSION_MARKER = 'statichost_session';
function mayHaveSession(): boolean {
  return document.cookie.split(';').some((pair) => pair.split('=')[0].trim() === SESSION_MARKER);
}

/**
 * A new access JWT from the refresh cookie, or null when there is no session. Refresh
 * tokens are single use and a reused one ends the session, so two tabs must never
 * refresh at once with the same cookie: a Web Lock shared by the tabs of this origin
 * serialises them (each waits, then sends the cookie the previous one set).
 */
export function refreshSession(force = false): Promise<string | null> {
  if (!force && token && Date.now() < expiresAt - MARGIN_MS) return Promise.resolve(token);
  if (!token && !mayHaveSession()) return Promise.resolve(null);
  pending ??= (async () => {
    const run = async () => {
      const res = await fetch('/auth/refresh', { method: 'POST', headers: MODE, body: '{}', credentials: 'same-origin' });
      if (!res.ok) {
        clearSession();
        return null;
      }
      return keep((await res.json()) as Pair);
    };
    try {
      return 'locks' in navigator ? await navigator.locks.request('statichost-session', run) : await run();
    } catch {
      return null;
    } finally {
      pending = null;
    }
  })();
  return pending;
}

/** The JWT to send now (refreshed first when close to expiry), or null when signed out. */
export async function accessToken(): Promise<string | null> {
  if (!token) return pending ?? null;
  if (Date.now() < expiresAt - MARGIN_MS) return token;
  return refreshSession(true);
}

export type SignedIn = components['schemas']['LoginView'];
export type Registered = components['schemas']['RegisterView'];

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, { method: 'POST', headers: MODE, body: JSON.stringify(body), credentials: 'same-origin' });
  const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    throw new ApiError(res.status, String(data.code ?? `http_${res.status}`), String(data.message ?? `The server answered ${res.status}`), data);
  }
  return data as T;
}

export async function signIn(email: string, password: string): Promise<SignedIn> {
  const answer = await post<SignedIn>('/auth/login', { email, password });
  keep(answer);
  return answer;
}

export async function register(email: string, password: string, name: string): Promise<Registered> {
  const answer = await post<Registered>('/auth/register', { email, password, name });
  keep(answer);
  return answer;
}

export async function signOut(): Promise<void> {
  const current = await accessToken();
  if (current) {
    await fetch('/auth/logout', { method: 'POST', headers: { ...MODE, Authorization: `Bearer ${current}` }, body: '{}', credentials: 'same-origin' }).catch(
      () => undefined,
    );
  }
  clearSession();
}
