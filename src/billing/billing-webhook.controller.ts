import { Controller, Headers, HttpCode, HttpStatus, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import getRawBody from 'raw-body';

import { payloadTooLarge } from '../common/errors';
import { Endpoint } from '../openapi/endpoint';
import { StripeWebhookAnswerView } from './billing.view';
import { BillingWebhookService } from './billing-webhook.service';

/** Where Stripe delivers; app.factory.ts keeps the JSON parser off it, as the signature is over the raw bytes. */
export const STRIPE_WEBHOOK_PATH = '/billing/stripe/webhook';

/** Stripe's events are a few KB; a megabyte is far past any, and refuses a flood of bytes before the signature is checked. */
const MAX_BYTES = 1024 * 1024;

@ApiTags('billing')
@Controller('billing/stripe')
export class BillingWebhookController {
  constructor(private readonly webhooks: BillingWebhookService) {}

  @Post('webhook')
  @Endpoint({
    id: 'receiveStripeWebhook',
    public: true,
    // Recorded as the system ("stripe webhook") for a subscription's change (also payment_method.removed, subscription.disputed);
    // invoices mirrored and redeliveries change nothing a workspace decides.
    audit: 'subscription.updated',
    errors: { 400: ['invalid_signature'], 404: ['stripe_webhook_not_configured'], 413: ['payload_too_large'], 502: ['payment_provider_unavailable'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Receive a Stripe webhook event (the subscription lifecycle; see docs/billing.md)',
    description:
      'Authenticated by `Stripe-Signature`, checked over the raw body with STRIPE_WEBHOOK_SECRET. Each event is acted on once: a redelivery answers ' +
      '`{received: true, duplicate: true}` and changes nothing. 404 when this installation takes no Stripe webhooks.',
  })
  @ApiHeader({ name: 'Stripe-Signature', required: true, description: 'Set by Stripe: `t=<unix time>,v1=<HMAC-SHA256>`' })
  @ApiBody({ description: 'The Stripe event, as Stripe sends it', schema: { type: 'object' } })
  @ApiOkResponse({ type: StripeWebhookAnswerView })
  async receive(@Req() req: Request, @Headers('stripe-signature') signature: string | undefined): Promise<StripeWebhookAnswerView> {
    return this.webhooks.receive(await readBody(req), signature);
  }
}

/** The exact bytes, at most MAX_BYTES: a larger declared length is refused before a byte is read. */
async function readBody(req: Request): Promise<Buffer> {
  const header = req.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  const tooLarge = () => payloadTooLarge(`the webhook payload is over the limit of ${MAX_BYTES} bytes`, { limit: MAX_BYTES });
  if (declared !== undefined && declared > MAX_BYTES) throw tooLarge();
  try {
    return await getRawBody(req, { length: declared, limit: MAX_BYTES });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw tooLarge();
    throw err;
  }
}
