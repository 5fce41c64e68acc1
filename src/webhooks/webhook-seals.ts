import type { SealedColumns } from '../database/reseal-rows';

/** What binds a webhook's signing secret to its row: a secret moved to another row does not open. */
export const secretAad = (webhookId: string) => Buffer.from(`statichost-webhook-secret:v1:${webhookId}`, 'utf8');
/** The same for a delivery's logged body. */
export const bodyAad = (deliveryId: string) => Buffer.from(`statichost-webhook-body:v1:${deliveryId}`, 'utf8');

/** The sealed values of outgoing webhooks, for `npm run leads:rotate`. */
export const WEBHOOK_SEALED_COLUMNS: SealedColumns[] = [
  {
    what: 'webhook signing secret',
    table: 'webhooks',
    id: 'id',
    keyId: 'secret_key_id',
    nonce: 'secret_nonce',
    ciphertext: 'secret_ciphertext',
    aad: secretAad,
  },
  {
    what: 'webhook delivery body',
    table: 'webhook_deliveries',
    id: 'id',
    keyId: 'body_key_id',
    nonce: 'body_nonce',
    ciphertext: 'body_ciphertext',
    aad: bodyAad,
  },
];
