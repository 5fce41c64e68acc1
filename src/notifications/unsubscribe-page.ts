import { escapeHtml, layout, messagePage } from '../common/site-pages';
import type { NotificationTopic } from './unsubscribe-token';

const WHAT: Record<NotificationTopic, string> = {
  build_failed: 'mails about failed production builds',
  domain_failed: 'mails about custom domains that stop verifying',
  digest: 'the digest of new leads and form submissions',
};

/**
 * What a GET of an unsubscribe link shows: a button, not the unsubscribe itself, since
 * mail scanners and link previews follow links (RFC 8058 §1). The button POSTs the same
 * body a one-click mail client sends.
 */
export function confirmUnsubscribePage(topic: NotificationTopic): string {
  return layout(
    'Unsubscribe',
    `<h1>Unsubscribe</h1><p>Stop ${escapeHtml(WHAT[topic])} from this workspace?</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function unsubscribedPage(topic: NotificationTopic): string {
  return messagePage(
    'Unsubscribed',
    `You will not get ${WHAT[topic]} from this workspace any more. You can turn them on again in your account’s notification settings.`,
  );
}

export function invalidLinkPage(): string {
  return messagePage(
    'Link not valid',
    'This unsubscribe link is not valid: it may have been cut or changed. Change your notifications in your account’s settings instead.',
  );
}
