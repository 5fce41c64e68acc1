import { randomBytes } from 'node:crypto';

import { generateSync } from 'otplib';

import { TOTP_SEALED_COLUMNS } from '../../src/auth/two-factor/totp-seals';
import { resealRows } from '../../src/database/reseal-rows';
import { LeadsKeyring } from '../../src/leads/keyring';
import { keyringRowCipher } from '../../src/leads/secret-sealer';
import { OutboxService } from '../../src/outbox/outbox.service';
import { SsoConnection } from '../../src/sso/sso.entities';
import { SsoService } from '../../src/sso/sso.service';
import { clientSecretAad } from '../../src/sso/sso-rules';
import { SSO_SEALED_COLUMNS } from '../../src/sso/sso-seals';
import { WEBHOOK_SEALED_COLUMNS } from '../../src/webhooks/webhook-seals';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, registerUser, type UserSession } from '../helpers/identity';
import { enrolTotp } from '../helpers/second-factors';
import { startWebhookReceiver, verifiedEvent, type WebhookReceiver } from '../helpers/webhook-receiver';

const key = () => randomBytes(32).toString('base64');
const K1 = `k1:${key()}`;
const K2 = `k2:${key()}`;
const IDX = `idx:${key()}`;
const SSO_SECRET = `sso-secret-${randomBytes(6).toString('hex')}`;

/**
 * `npm run leads:rotate` beyond leads, submissions and build secrets: outgoing webhooks'
 * signing secrets and logged bodies, TOTP secrets and SSO client secrets are sealed with
 * the same keys, so the old key can only go once they are sealed again under the new one.
 */
describe('Webhook, TOTP and SSO secrets under a rotated leads key (e2e)', () => {
  let receiver: WebhookReceiver;
  let before: TestApp;
  const others: TestApp[] = [];
  let owner: UserSession;
  let totpSecret: string;
  let webhookSecret: string;
  const errors: object[] = [];
  const log = { error: (fields: object) => void errors.push(fields) };
  const env = (keys: string) => ({ LEADS_ENCRYPTION_KEYS: keys, LEADS_INDEX_KEY: IDX, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });
  const instance = async (keys: string) => {
    const t = await startTestApp({ sibling: before, env: env(keys) });
    others.push(t);
    return t;
  };
  const keyIds = (t: TestApp) =>
    t.dataSource.query(
      `SELECT 'webhook' AS what, secret_key_id AS key_id FROM webhooks
       UNION ALL SELECT 'delivery', body_key_id FROM webhook_deliveries
       UNION ALL SELECT 'totp', secret_key_id FROM totp_credentials
       UNION ALL SELECT 'sso', secret_key_id FROM sso_connections ORDER BY 1`,
    );

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    before = await startTestApp({ env: env(K1) });
    owner = await registerUser(before);
    // The registration's mail shares the outbox: sent now, so what is sent later is the webhook's.
    await before.app.get(OutboxService).runOnce();
    totpSecret = (await enrolTotp(before, owner)).secret;
    const hook = (
      await before
        .http()
        .post('/webhooks')
        .set(asUser(owner))
        .send({ url: receiver.url(), events: ['deployment.created'] })
        .expect(201)
    ).body;
    webhookSecret = hook.secret;
    await before.http().post(`/webhooks/${hook.id}/test`).set(asUser(owner)).expect(202);
    // An SSO connection as PUT /workspaces/:id/sso stores it (its provider is not needed to rotate its secret).
    const sealed = keyringRowCipher(before.app.get(LeadsKeyring)).seal(SSO_SECRET, clientSecretAad(owner.workspaceId));
    await before.dataSource.query(
      `INSERT INTO sso_connections (workspace_id, issuer, client_id, secret_key_id, secret_nonce, secret_ciphertext, default_role)
       VALUES ($1, 'https://idp.example.test', 'statichost', $2, $3, $4, 'viewer')`,
      [owner.workspaceId, sealed.keyId, sealed.nonce, sealed.ciphertext],
    );
  });
  afterAll(async () => {
    for (const t of others.reverse()) await t.close();
    await before?.close();
    await receiver?.close();
  });

  it('seals each of them again under the newest key, and an instance with only that key uses them', async () => {
    const both = await instance(`${K2},${K1}`);
    expect((await keyIds(both)).map((r: { key_id: string }) => r.key_id)).toEqual(['k1', 'k1', 'k1', 'k1']);
    const cipher = keyringRowCipher(both.app.get(LeadsKeyring));
    const rotate = async () => {
      const stats = [];
      for (const columns of [...WEBHOOK_SEALED_COLUMNS, TOTP_SEALED_COLUMNS, SSO_SEALED_COLUMNS])
        stats.push(await resealRows(both.dataSource, cipher, columns, log));
      return stats;
    };
    expect(await rotate()).toEqual(Array(4).fill({ resealed: 1, failed: 0, remaining: 0 }));
    expect((await keyIds(both)).map((r: { key_id: string }) => r.key_id)).toEqual(['k2', 'k2', 'k2', 'k2']);
    expect(await rotate()).toEqual(Array(4).fill({ resealed: 0, failed: 0, remaining: 0 }));
    expect(errors).toEqual([]);

    const onlyNew = await instance(K2);
    // TOTP: the second factor still signs in (with the next step's code: this step's was used to enrol).
    const login = await onlyNew.http().post('/auth/login').send({ email: owner.email, password: owner.password }).expect(401);
    const next = generateSync({ secret: totpSecret, epoch: Math.floor(Date.now() / 1000) + 30 });
    await onlyNew.http().post('/auth/login/second-factor').send({ challenge: login.body.challenge, totp: next }).expect(200);
    // The webhook: its logged body opens and is signed with the secret shown at creation.
    await onlyNew.app.get(OutboxService).runOnce();
    expect(receiver.calls).toHaveLength(1);
    expect(verifiedEvent(webhookSecret, receiver.calls[0])).toMatchObject({ type: 'webhook.test', workspaceId: owner.workspaceId });
    // SSO: the client secret for the provider's token endpoint.
    const connection = await onlyNew.dataSource.getRepository(SsoConnection).findOneByOrFail({ workspaceId: owner.workspaceId });
    expect(onlyNew.app.get(SsoService).openSecret(connection)).toBe(SSO_SECRET);
  });

  it('leaves a value it cannot open as it is, says so, and counts it as remaining', async () => {
    const t = others[0];
    await t.dataSource.query(`UPDATE sso_connections SET secret_key_id = 'k1' WHERE workspace_id = $1`, [owner.workspaceId]);
    const stats = await resealRows(t.dataSource, keyringRowCipher(t.app.get(LeadsKeyring)), SSO_SEALED_COLUMNS, log);
    expect(stats).toEqual({ resealed: 0, failed: 1, remaining: 1 });
    expect(errors).toEqual([{ 'SSO client secret': owner.workspaceId, keyId: 'k1' }]);
  });
});
