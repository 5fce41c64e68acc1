import { signUnsubscribe, verifyUnsubscribe } from './unsubscribe-token';

const secret = Buffer.from('a-test-secret-of-enough-length-for-hmac');
const grant = { userId: 'usr_abc', workspaceId: 'ws_def', topic: 'digest' } as const;

describe('unsubscribe tokens', () => {
  it('verify what they sign', () => {
    expect(verifyUnsubscribe(secret, signUnsubscribe(secret, grant))).toEqual(grant);
  });

  it('refuse a token whose user, workspace or topic was changed', () => {
    const token = signUnsubscribe(secret, grant);
    expect(verifyUnsubscribe(secret, token.replace('usr_abc', 'usr_abd'))).toBeUndefined();
    expect(verifyUnsubscribe(secret, token.replace('ws_def', 'ws_deg'))).toBeUndefined();
    expect(verifyUnsubscribe(secret, token.replace('.digest.', '.build_failed.'))).toBeUndefined();
  });

  it('refuse another secret’s token, a cut one, an unknown topic and non-strings', () => {
    const token = signUnsubscribe(secret, grant);
    expect(verifyUnsubscribe(Buffer.from('another secret'), token)).toBeUndefined();
    expect(verifyUnsubscribe(secret, token.slice(0, -1))).toBeUndefined();
    expect(verifyUnsubscribe(secret, signUnsubscribe(secret, { ...grant, topic: 'everything' as never }))).toBeUndefined();
    for (const bad of [undefined, 42, '', 'u1.a.b.digest', `${token}.x`, 'x'.repeat(600)]) expect(verifyUnsubscribe(secret, bad)).toBeUndefined();
  });
});
