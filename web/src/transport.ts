import createClient, { type Client } from 'openapi-fetch';

import { ApiError } from './errors';
import type { paths } from './sdk';
import { createSession, type Session, type SessionOptions } from './session';

/** What the one 401 path needs of a session. */
export type Credentials = Pick<Session, 'accessToken' | 'refresh' | 'ended'>;

/**
 * Sends once with the access JWT; on a 401 with a token, refreshes the session once
 * (cookie) and sends again, so an expired JWT never reaches the user. When the refresh
 * fails too, the session has ended: the app sends the user to sign in. Every
 * authorised request of the dashboard (typed calls, the CSV export, blob uploads) goes
 * through here, whatever carries it (fetch or XMLHttpRequest).
 */
export async function withCredentials<R extends { status: number }>(
  session: Credentials,
  send: (token: string | null, attempt: 1 | 2) => Promise<R>,
): Promise<R> {
  const token = await session.accessToken();
  const answer = await send(token, 1);
  if (answer.status !== 401 || !token) return answer;
  const fresh = await session.refresh(true);
  if (!fresh) {
    session.ended();
    return answer;
  }
  return send(fresh, 2);
}

/** The header that names the workspace a request acts in (src/auth: X-Workspace-Id). */
export function inWorkspace(workspaceId: string): { 'X-Workspace-Id': string } {
  return { 'X-Workspace-Id': workspaceId };
}

/** Turns any failed answer into an ApiError with the service's message. */
export async function errorOf(response: Response, body?: unknown): Promise<ApiError> {
  let parsed = body as Record<string, unknown> | undefined;
  if (parsed === undefined) parsed = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const message = typeof parsed?.message === 'string' ? parsed.message : `The server answered ${response.status} ${response.statusText}`;
  const code = typeof parsed?.code === 'string' ? parsed.code : `http_${response.status}`;
  return new ApiError(response.status, code, message, parsed ?? {});
}

/** The data of an openapi-fetch answer, or an ApiError. */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch (err) {
    throw new ApiError(0, 'network_error', `Could not reach the server: ${(err as Error).message}`);
  }
  const { data, error, response } = result;
  if (!response.ok || error !== undefined) throw await errorOf(response, error);
  return data as T;
}

export interface Upload {
  method: 'PUT' | 'POST';
  path: string;
  body: Blob;
  headers?: Record<string, string>;
  /** Bytes sent since the last call; negative when the upload starts over (after a refresh). */
  onBytes?: (n: number) => void;
}

/** One XMLHttpRequest (fetch cannot report upload progress). */
function sendXhr(baseUrl: string, upload: Upload, token: string | null): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    let sent = 0;
    xhr.open(upload.method, baseUrl + upload.path);
    for (const [name, value] of Object.entries(upload.headers ?? {})) xhr.setRequestHeader(name, value);
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => {
      upload.onBytes?.(e.loaded - sent);
      sent = e.loaded;
    };
    xhr.onload = () => {
      // A 401 is sent again: what left counts for nothing.
      if (xhr.status === 401) upload.onBytes?.(-sent);
      resolve({ status: xhr.status, text: xhr.responseText });
    };
    xhr.onerror = () => reject(new ApiError(0, 'network_error', `Upload to ${upload.path} failed: the connection dropped`));
    xhr.send(upload.body);
  });
}

/** Asks the person to confirm it is them (POST /auth/reauthenticate); `message` is the refusal's, naming the change. */
export type IdentityConfirmer = (message: string) => Promise<boolean>;

/** The message of a 403 `reauthentication_required`, or null for any other 403 (read from a copy: the caller reads the body). */
async function recentSignInRefusal(answer: Response): Promise<string | null> {
  const body = (await answer
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown; message?: unknown } | null;
  return body?.code === 'reauthentication_required' && typeof body.message === 'string' ? body.message : null;
}

export interface TransportOptions extends SessionOptions {
  baseUrl: string;
  fetch?: typeof fetch;
}

export type Transport = ReturnType<typeof createTransport>;

/**
 * The dashboard's one way to the API: the session (its auth calls use `publicApi`, the
 * typed client without credentials), and `api`, the typed client whose every request
 * carries the session's JWT through `withCredentials`; uploads take the same path.
 */
export function createTransport({ baseUrl, fetch: fetchImpl = (request) => globalThis.fetch(request), ...sessionOptions }: TransportOptions) {
  const publicApi: Client<paths> = createClient<paths>({ baseUrl, fetch: fetchImpl, credentials: 'same-origin' });
  const session = createSession(publicApi, sessionOptions);

  const send = (input: Request): Promise<Response> => {
    // A body is read once: the retry sends a copy taken before the first attempt.
    const retry = input.clone();
    return withCredentials(session, (token, attempt) => {
      const request = attempt === 1 ? input : retry;
      if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
      return fetchImpl(request);
    });
  };

  let confirmIdentity: IdentityConfirmer | null = null;
  const authorizedFetch = async (input: Request): Promise<Response> => {
    // Only a change can ask for a recent sign-in: reads are not copied for a second sending.
    const again = input.method === 'GET' || !confirmIdentity ? null : input.clone();
    const answer = await send(input);
    if (answer.status !== 403 || !again || !confirmIdentity) return answer;
    const refusal = await recentSignInRefusal(answer);
    if (!refusal || !(await confirmIdentity(refusal))) return answer;
    return send(again);
  };

  return {
    session,
    publicApi,
    api: createClient<paths>({ baseUrl, fetch: authorizedFetch }),
    authorizedFetch,
    /**
     * Who asks the person to confirm it is them when a change answers 403
     * `reauthentication_required` (the dashboard's dialog): resolving true sends the change
     * again, false gives the caller the 403. Returns the unsubscribe.
     */
    onReauthenticationRequired(confirmer: IdentityConfirmer): () => void {
      confirmIdentity = confirmer;
      return () => {
        if (confirmIdentity === confirmer) confirmIdentity = null;
      };
    },
    /** Sends a body with upload progress; resolves with any answer (the caller reads the status). */
    upload: (upload: Upload) => withCredentials(session, (token) => sendXhr(baseUrl, upload, token)),
  };
}
