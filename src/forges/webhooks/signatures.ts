import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

import { verify as verifyGitHub } from '@octokit/webhooks-methods';

/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, checked by
 * Octokit's own verifier. It takes the body as a string and signs its UTF-8 bytes; the
 * caller hands it the body decoded as strict UTF-8, so those are the bytes received.
 */
export async function verifyGitHubSignature(secret: string, body: string, header: string): Promise<boolean> {
  // Octokit also takes a `sha1=` value (the older X-Hub-Signature): this header is SHA-256 only.
  if (!/^sha256=[0-9a-f]{64}$/.test(header)) return false;
  try {
    return await verifyGitHub(secret, body, header);
  } catch {
    // It throws on an empty body or header: not a valid signature either way.
    return false;
  }
}

/** Gitea and Forgejo: `X-Gitea-Signature` / `X-Forgejo-Signature: <hex HMAC-SHA256 of the body>`, no prefix. */
export function verifyGiteaSignature(secret: string, body: Buffer, header: string): boolean {
  const given = header.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}

/**
 * GitLab sends the secret itself in `X-Gitlab-Token`. Compared through their SHA-256
 * digests so the comparison takes the same time whatever the lengths.
 */
export function verifyGitLabToken(secret: string, header: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(header), digest(secret));
}
