import { emailDomain, judgeEmail, sameBrowser, signInErrorPath, stateHash } from './sso-rules';

describe('emailDomain', () => {
  it('is the lowercased part after the last @', () => {
    expect(emailDomain('Ada@Example.COM')).toBe('example.com');
    expect(emailDomain('"a@b"@corp.example')).toBe('corp.example');
  });
  it('is in the ASCII form SSO domains are stored in, whichever spelling the address uses', () => {
    expect(emailDomain('ann@Bücher.Example')).toBe('xn--bcher-kva.example');
    expect(emailDomain('ann@xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(emailDomain('ann@ＥＸＡＭＰＬＥ．com')).toBe('example.com');
    expect(emailDomain('ann@corp.example。')).toBe('corp.example');
    expect(emailDomain('ann@corp.example.')).toBe('corp.example');
  });
  it('is null without a domain', () => {
    expect(emailDomain('ada')).toBeNull();
    expect(emailDomain('ada@')).toBeNull();
    expect(emailDomain('@example.com')).toBeNull();
  });
});

describe('judgeEmail', () => {
  const domains = ['corp.example'];
  it('lets in a verified email of a verified domain, lowercased', () => {
    expect(judgeEmail({ email: 'Ada@Corp.Example', email_verified: true }, domains)).toEqual({ ok: true, email: 'ada@corp.example' });
  });
  it('refuses an email the provider did not verify', () => {
    expect(judgeEmail({ email: 'ada@corp.example', email_verified: false }, domains)).toEqual({ ok: false, error: 'email_not_verified' });
    expect(judgeEmail({ email: 'ada@corp.example' }, domains)).toEqual({ ok: false, error: 'email_not_verified' });
    expect(judgeEmail({ email_verified: true }, domains)).toEqual({ ok: false, error: 'email_not_verified' });
  });
  it('refuses an address outside the verified domains, subdomains included', () => {
    expect(judgeEmail({ email: 'eve@gmail.com', email_verified: true }, domains)).toEqual({ ok: false, error: 'email_not_allowed' });
    expect(judgeEmail({ email: 'eve@x.corp.example', email_verified: true }, domains)).toEqual({ ok: false, error: 'email_not_allowed' });
    expect(judgeEmail({ email: 'eve@corp.example', email_verified: true }, [])).toEqual({ ok: false, error: 'email_not_allowed' });
  });
});

describe('stateHash and signInErrorPath', () => {
  it('hash the state and name the refusal', () => {
    expect(stateHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(signInErrorPath('invalid_state')).toBe('/app/sign-in?sso_error=invalid_state');
  });
});

describe('sameBrowser', () => {
  const stored = stateHash('the-value-the-start-set');
  it('accepts the value whose hash the sign-in keeps', () => {
    expect(sameBrowser('the-value-the-start-set', stored)).toBe(true);
  });
  it('refuses another value, none, and a stored hash of another length', () => {
    expect(sameBrowser('another-value', stored)).toBe(false);
    expect(sameBrowser(undefined, stored)).toBe(false);
    expect(sameBrowser('', stateHash(''))).toBe(false);
    expect(sameBrowser('the-value-the-start-set', stored.slice(1))).toBe(false);
  });
});
