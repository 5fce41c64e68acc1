import { ApiProperty } from '@nestjs/swagger';

import { IdProperty } from '../common/dto-fields';
import { iso } from '../common/time';
import { type Webhook, WEBHOOK_FORMATS, type WebhookFormat } from './webhook.entity';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery } from './webhook-delivery.entity';

export class WebhookView {
  @IdProperty('wh')
  id: string;
  @ApiProperty()
  url: string;
  @ApiProperty({ type: [String] })
  events: string[];
  @ApiProperty({ type: String, nullable: true })
  description: string | null;
  @ApiProperty()
  enabled: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Why the service turned it off (410 Gone, five days of failures)' })
  disabledReason: string | null;
  @ApiProperty()
  includePersonalData: boolean;
  @ApiProperty({ enum: WEBHOOK_FORMATS })
  format: WebhookFormat;
  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'First failure since the last success' })
  failingSince: string | null;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class WebhookWithSecretView extends WebhookView {
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'Shown once: verify deliveries with it (Standard Webhooks)' })
  secret: string;
}

export class WebhookNewSecretView {
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'The new secret, shown once; the old one stops signing at once' })
  secret: string;
}

export function webhookView(w: Webhook): WebhookView {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    includePersonalData: w.includePersonalData,
    format: w.format,
    failingSince: iso(w.failingSince),
    createdAt: iso(w.createdAt),
  };
}

class DeliveryRequestView {
  @ApiProperty()
  url: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'The headers of the last attempt (the signature left out)' })
  headers: Record<string, string>;
  @ApiProperty({ description: 'The body exactly as sent' })
  body: string;
}

export class WebhookDeliveryView {
  @IdProperty('msg')
  id: string;
  @ApiProperty()
  eventType: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, description: '`pending` while attempts remain, `failed` once they are used up or the endpoint was turned off' })
  status: DeliveryStatus;
  @ApiProperty({ type: 'integer' })
  attempts: number;
  @ApiProperty({ type: 'integer', nullable: true })
  responseStatus: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The first 4 KB of the last answer’s body' })
  responseBody: string | null;
  @ApiProperty({ type: 'integer', nullable: true })
  latencyMs: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last attempt got no answer (address refused, timeout)' })
  error: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  lastAttemptAt: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' })
  nextAttemptAt: string | null;
  @ApiProperty({ type: DeliveryRequestView })
  request: DeliveryRequestView;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export function deliveryView(d: WebhookDelivery, body: string, url: string, nextAttemptAt: Date | null): WebhookDeliveryView {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'statichost-webhooks', 'webhook-id': d.id };
  if (d.lastAttemptAt) headers['webhook-timestamp'] = String(Math.floor(d.lastAttemptAt.getTime() / 1000));
  return {
    id: d.id,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.responseStatus,
    responseBody: d.responseBody,
    latencyMs: d.latencyMs,
    error: d.error,
    lastAttemptAt: iso(d.lastAttemptAt),
    nextAttemptAt: d.status === 'pending' ? iso(nextAttemptAt) : null,
    request: { url, headers, body },
    createdAt: iso(d.createdAt),
  };
}
