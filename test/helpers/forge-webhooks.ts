import { createHmac } from 'node:crypto';

/**
 * The headers each forge sends with a webhook delivery, signed the way that forge signs
 * (GitHub: X-Hub-Signature-256; GitLab: the secret itself; Gitea and Forgejo: a bare hex
 * HMAC, beside the GitHub and Gogs headers they also send). The one copy for the e2e
 * tests and bench/builds.ts.
 */

export type Forge = 'github' | 'gitlab' | 'gitea' | 'forgejo';

/** The headers a forge sends with a delivery of `body`, signed with `secret`. */
export function forgeHeaders(forge: Forge, event: string, body: Buffer, secret: string | null, deliveryId: string): Record<string, string> {
  const hmac = secret === null ? null : createHmac('sha256', secret).update(body).digest('hex');
  switch (forge) {
    case 'github':
      return {
        'X-GitHub-Event': event,
        'X-GitHub-Delivery': deliveryId,
        'X-GitHub-Hook-ID': '30',
        'User-Agent': 'GitHub-Hookshot/044aadd',
        ...(hmac === null ? {} : { 'X-Hub-Signature-256': `sha256=${hmac}` }),
      };
    case 'gitlab':
      // GitLab sends the secret itself, not a signature.
      return {
        'X-Gitlab-Event': event,
        'X-Gitlab-Event-UUID': deliveryId,
        'X-Gitlab-Webhook-UUID': '9b9b4b2c-0b6b-4b6b-8b6b-0b6b4b6b8b6b',
        'User-Agent': 'GitLab/17.5.0',
        ...(secret === null ? {} : { 'X-Gitlab-Token': secret }),
      };
    case 'gitea':
      // Gitea also sends GitHub's and Gogs' headers: the receiver must go by X-Gitea-*.
      return {
        'X-Gitea-Event': event,
        'X-Gitea-Event-Type': event,
        'X-Gitea-Delivery': deliveryId,
        'X-GitHub-Event': event,
        'X-GitHub-Delivery': deliveryId,
        'X-Gogs-Event': event,
        ...(hmac === null ? {} : { 'X-Gitea-Signature': hmac, 'X-Gogs-Signature': hmac }),
      };
    case 'forgejo':
      return {
        'X-Forgejo-Event': event,
        'X-Forgejo-Delivery': deliveryId,
        'X-Gitea-Event': event,
        'X-Gitea-Delivery': deliveryId,
        'X-GitHub-Event': event,
        ...(hmac === null ? {} : { 'X-Forgejo-Signature': hmac, 'X-Gitea-Signature': hmac }),
      };
  }
}

/** `forgeHeaders` with lower-case names (tests that drop or change one header by name), plus the JSON content type. */
export function signedDelivery(
  forge: Forge,
  event: string,
  body: string,
  secret: string,
  deliveryId: string,
): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(forgeHeaders(forge, event, Buffer.from(body), secret, deliveryId))) headers[name.toLowerCase()] = value;
  return { body, headers };
}
