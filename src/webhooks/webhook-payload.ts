import { Webhook as StandardWebhook } from 'standardwebhooks';

import type { EventBody } from '../events/events';
import type { WebhookFormat } from './webhook.entity';

/** Standard Webhooks secrets: `whsec_` and the base64 of 24 random bytes (the length svix and the spec's examples use). */
export const SECRET_PREFIX = 'whsec_';

/**
 * The headers of one attempt, per the Standard Webhooks specification: the message id
 * (the same on every attempt, so a receiver can drop a repeat), the attempt's time in
 * Unix seconds, and `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` made by the
 * `standardwebhooks` package itself, so what receivers verify with it is what we sign.
 */
export function signedHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new StandardWebhook(secret).sign(messageId, at, body),
  };
}

/** The request body for an endpoint of `format`: the event itself, or a Slack message about it. */
export function requestBody(format: WebhookFormat, event: EventBody): string {
  return JSON.stringify(format === 'slack' ? slackMessage(event) : event);
}

/**
 * Slack's incoming-webhook shape (`text`, plus `blocks` with the same words in mrkdwn):
 * one line naming what happened, the project and the link to it when the event has one.
 * Slack's control characters `<`, `>` and `&` in names are escaped, as Slack asks.
 */
export function slackMessage(event: EventBody): { text: string; blocks: unknown[] } {
  const d = event.data;
  const str = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : typeof d[k] === 'number' ? String(d[k]) : undefined);
  const project = str('projectSlug') ? ` in *${escapeSlack(str('projectSlug')!)}*` : '';
  const what: Record<string, string> = {
    'deployment.created': `New deployment v${str('version') ?? '?'}${project}${d.live === true ? ' (live)' : ''}`,
    'deployment.promoted': `Deployment v${str('version') ?? '?'} is now live${project}`,
    'deployment.archived': `Deployment v${str('version') ?? '?'} archived${project} (${str('reason') ?? 'archived'})`,
    'build.started': `Build started${project}${str('branch') ? ` on ${escapeSlack(str('branch')!)}` : ''}`,
    'build.succeeded': `Build succeeded${project}${str('branch') ? ` on ${escapeSlack(str('branch')!)}` : ''}`,
    'build.failed': `Build failed${project}${str('branch') ? ` on ${escapeSlack(str('branch')!)}` : ''}: ${escapeSlack(str('error') ?? '')}`,
    'lead.captured': `New lead${project}${str('email') ? `: ${escapeSlack(str('email')!)}` : ''}`,
    'form.submitted': `New submission to form *${escapeSlack(str('formName') ?? '')}*${project}`,
    'domain.verified': `Domain ${escapeSlack(str('domain') ?? '')} verified${project}`,
    'domain.failed': `Domain ${escapeSlack(str('domain') ?? '')} stopped verifying${project}: ${escapeSlack(str('reason') ?? '')}`,
    'usage.threshold': `Usage of ${escapeSlack(str('metric') ?? '')} reached ${str('percent') ?? '?'} % of the plan (${str('used') ?? '?'} of ${str('limit') ?? '?'})`,
    'webhook.test': `Test event from ${escapeSlack(str('webhookId') ?? 'a webhook')}: ${escapeSlack(str('message') ?? '')}`,
  };
  const link = str('url') ?? str('dashboardUrl');
  const text = `${what[event.type] ?? event.type}${link ? ` <${escapeSlack(link)}|open>` : ''}`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

function escapeSlack(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
