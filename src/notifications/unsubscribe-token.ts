import { createHmac, timingSafeEqual } from 'node:crypto';

/** What one notification mail can be unsubscribed from: its own kind, in its own workspace. */
export const NOTIFICATION_TOPICS = ['build_failed', 'domain_failed', 'digest'] as const;
export type NotificationTopic = (typeof NOTIFICATION_TOPICS)[number];

export interface UnsubscribeGrant {
  userId: string;
  workspaceId: string;
  topic: NotificationTopic;
}

const VERSION = 'u1';
const MAX_LENGTH = 512;

function mac(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

/**
 * The token of a one-click unsubscribe link (RFC 8058): `u1.<userId>.<workspaceId>.<topic>.<mac>`,
 * the MAC an HMAC-SHA256 over the rest with a server secret. It never expires: a mail
 * read months later must still unsubscribe, and all it can do is turn one notification off.
 */
export function signUnsubscribe(secret: Buffer, grant: UnsubscribeGrant): string {
  const payload = `${VERSION}.${grant.userId}.${grant.workspaceId}.${grant.topic}`;
  return `${payload}.${mac(secret, payload)}`;
}

/** The grant of a genuine token, else undefined (tampered, truncated, another secret's, unknown topic). */
export function verifyUnsubscribe(secret: Buffer, token: unknown): UnsubscribeGrant | undefined {
  if (typeof token !== 'string' || token.length > MAX_LENGTH) return undefined;
  const parts = token.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) return undefined;
  const [, userId, workspaceId, topic, given] = parts;
  if (!userId || !workspaceId || !(NOTIFICATION_TOPICS as readonly string[]).includes(topic)) return undefined;
  const expected = Buffer.from(mac(secret, `${VERSION}.${userId}.${workspaceId}.${topic}`));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  return { userId, workspaceId, topic: topic as NotificationTopic };
}
