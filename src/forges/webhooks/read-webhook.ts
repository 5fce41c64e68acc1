import type { Forge, WebhookOutcome, WebhookProblem } from './events';
import { MalformedPayload, normalise } from './payloads';
import { verifyGiteaSignature, verifyGitHubSignature, verifyGitLabToken } from './signatures';

/**
 * Largest webhook body read. GitHub caps its payloads at 25 MB, but a push lists at
 * most 20 commits and a pull request event is a few tens of KB; 2 MiB leaves room for
 * long commit messages while bounding what an unsigned request makes us read and hash.
 */
export const WEBHOOK_MAX_BYTES = 2 * 1024 * 1024;

export type WebhookHeaders = Record<string, string | string[] | undefined>;

export interface WebhookRequest {
  /** The request's headers (any case). */
  headers: WebhookHeaders;
  /** The raw body bytes, exactly as received: signatures are over these. */
  body: Buffer;
}

interface ForgeHeaders {
  forge: Forge;
  event: string;
  delivery: string | null;
  signature: string | null;
}

function header(headers: WebhookHeaders, name: string): string | null {
  const value = headers[name];
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' && one.length > 0 ? one : null;
}

/**
 * Which forge sent a delivery, by its headers. Gitea also sends GitHub's and Gogs'
 * headers (`X-GitHub-Event`…) and Forgejo also sends Gitea's, so the most specific
 * wins: Forgejo, then Gitea, then GitLab, then GitHub.
 */
export function detectForge(rawHeaders: WebhookHeaders): ForgeHeaders | null {
  const headers: WebhookHeaders = {};
  for (const [name, value] of Object.entries(rawHeaders)) headers[name.toLowerCase()] = value;
  const h = (name: string) => header(headers, name);
  const forgejo = h('x-forgejo-event');
  if (forgejo)
    return {
      forge: 'forgejo',
      event: forgejo,
      delivery: h('x-forgejo-delivery') ?? h('x-gitea-delivery'),
      signature: h('x-forgejo-signature') ?? h('x-gitea-signature'),
    };
  const gitea = h('x-gitea-event');
  if (gitea) return { forge: 'gitea', event: gitea, delivery: h('x-gitea-delivery'), signature: h('x-gitea-signature') };
  const gitlab = h('x-gitlab-event');
  if (gitlab) return { forge: 'gitlab', event: gitlab, delivery: h('x-gitlab-event-uuid'), signature: h('x-gitlab-token') };
  const github = h('x-github-event');
  if (github) return { forge: 'github', event: github, delivery: h('x-github-delivery'), signature: h('x-hub-signature-256') };
  return null;
}

const SIGNATURE_HEADER: Record<Forge, string> = {
  github: 'X-Hub-Signature-256',
  gitlab: 'X-Gitlab-Token',
  gitea: 'X-Gitea-Signature',
  forgejo: 'X-Forgejo-Signature',
};

const DELIVERY_HEADER: Record<Forge, string> = {
  github: 'X-GitHub-Delivery',
  gitlab: 'X-Gitlab-Event-UUID',
  gitea: 'X-Gitea-Delivery',
  forgejo: 'X-Forgejo-Delivery',
};

/** Forges send a UUID (36 characters); the id is stored and indexed to spot redeliveries, so it is bounded. */
export const MAX_DELIVERY_ID_LENGTH = 200;

function refuse(problem: WebhookProblem['problem'], message: string): WebhookOutcome {
  const status = { unknown_forge: 400, missing_signature: 401, bad_signature: 401, too_large: 413, malformed_payload: 400 }[problem];
  return { ok: false, problem, status, message } as WebhookOutcome;
}

/**
 * A forge's webhook delivery, checked and read: the size cap, which forge sent it, its
 * signature (over the raw bytes, before anything of the body is parsed), then the
 * payload as one ForgeEvent. `secret` is the project's webhook secret. Never throws for
 * anything the sender controls: a refusal says what was wrong and which status fits.
 */
export async function readWebhook(request: WebhookRequest, secret: string, maxBytes = WEBHOOK_MAX_BYTES): Promise<WebhookOutcome> {
  if (request.body.length > maxBytes) return refuse('too_large', `the webhook payload is ${request.body.length} bytes; at most ${maxBytes} are read`);
  const sent = detectForge(request.headers);
  if (!sent) {
    return refuse('unknown_forge', 'no forge event header: expected X-GitHub-Event, X-Gitlab-Event, X-Gitea-Event or X-Forgejo-Event');
  }
  const signatureHeader = SIGNATURE_HEADER[sent.forge];
  if (!sent.signature) return refuse('missing_signature', `the ${signatureHeader} header is missing: set the webhook's secret on the forge`);
  // Decoding is not parsing: every forge sends UTF-8, and Octokit's verifier signs a string.
  let text: string | null;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(request.body);
  } catch {
    text = null;
  }
  if (!secret || !(await signatureMatches(sent.forge, secret, request.body, text, sent.signature))) {
    return refuse('bad_signature', `the ${signatureHeader} header does not match this project's webhook secret`);
  }
  // Only a signed body is told what is wrong with it: anyone else gets the 401 above.
  if (text === null) return refuse('malformed_payload', 'the webhook payload is not UTF-8');

  if (sent.delivery !== null && sent.delivery.length > MAX_DELIVERY_ID_LENGTH) {
    return refuse(
      'malformed_payload',
      `the ${DELIVERY_HEADER[sent.forge]} header is ${sent.delivery.length} characters long; a delivery id has at most ${MAX_DELIVERY_ID_LENGTH}`,
    );
  }

  let payload: unknown;
  try {
    payload = JSON.parse(jsonText(text, request.headers));
  } catch {
    return refuse('malformed_payload', 'the webhook payload is not JSON (set the webhook content type to application/json)');
  }
  try {
    return { ok: true, forge: sent.forge, deliveryId: sent.delivery, eventName: sent.event, event: normalise(sent.forge, sent.event, payload) };
  } catch (err) {
    if (err instanceof MalformedPayload) return refuse('malformed_payload', err.message);
    throw err;
  }
}

async function signatureMatches(forge: Forge, secret: string, body: Buffer, text: string | null, signature: string): Promise<boolean> {
  switch (forge) {
    case 'github':
      // Strict UTF-8 decoded (ignoreBOM keeps a BOM): Octokit re-encodes exactly the bytes received.
      // A body that is not UTF-8 cannot be handed to it as a string: the same HMAC, over the bytes.
      if (text === null) return signature.startsWith('sha256=') && verifyGiteaSignature(secret, body, signature.slice('sha256='.length));
      return verifyGitHubSignature(secret, text, signature);
    case 'gitlab':
      return verifyGitLabToken(secret, signature);
    case 'gitea':
    case 'forgejo':
      return verifyGiteaSignature(secret, body, signature);
  }
}

/** GitHub and Gitea can post `application/x-www-form-urlencoded` with the JSON in `payload`. */
function jsonText(text: string, headers: WebhookHeaders): string {
  const type = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  const contentType = (Array.isArray(type) ? type[0] : (type ?? '')).toLowerCase();
  if (!contentType.startsWith('application/x-www-form-urlencoded')) return text;
  const payload = new URLSearchParams(text).get('payload');
  if (payload === null) throw new Error('no payload field');
  return payload;
}
