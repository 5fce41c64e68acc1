import { challengeName, type DomainState, judge, type Lookup, newDomainToken, nextDomainState, recordsToCreate } from './domain-check';

const HOUR = 3600_000;
const at = (hours: number) => new Date(Date.UTC(2026, 0, 1) + hours * HOUR);
const answer = (...values: string[]): Lookup => ({ kind: 'answer', values });

describe('records and tokens', () => {
  it('puts the challenge under _statichost-challenge', () => {
    expect(challengeName('www.example.com')).toBe('_statichost-challenge.www.example.com');
    expect(recordsToCreate('www.example.com', 'tok', 'blog.sites.test')).toEqual([
      { type: 'TXT', name: '_statichost-challenge.www.example.com', value: 'tok' },
      { type: 'CNAME', name: 'www.example.com', value: 'blog.sites.test' },
    ]);
  });

  it('makes a fresh 128-bit token each time', () => {
    const tokens = new Set(Array.from({ length: 50 }, newDomainToken));
    expect(tokens.size).toBe(50);
    for (const t of tokens) expect(t).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('judge', () => {
  const expected = recordsToCreate('www.example.com', 'tok123', 'blog.sites.test');

  it('verifies on the token alone, among other TXT values', () => {
    const result = judge(expected, answer('v=spf1 -all', 'tok123'), answer());
    expect(result.verdict).toBe('verified');
    expect(result.records[0]).toEqual({
      type: 'TXT',
      name: '_statichost-challenge.www.example.com',
      expected: 'tok123',
      found: ['v=spf1 -all', 'tok123'],
      ok: true,
      error: null,
    });
    expect(result.records[1]).toMatchObject({ type: 'CNAME', expected: 'blog.sites.test', found: [], ok: false });
  });

  it('reports a wrong or missing token as absent, and says what was found', () => {
    expect(judge(expected, answer('tok12'), answer('blog.sites.test')).verdict).toBe('absent');
    const missing = judge(expected, answer(), answer('BLOG.sites.test.'));
    expect(missing.verdict).toBe('absent');
    expect(missing.records[0]).toMatchObject({ found: [], ok: false });
    expect(missing.records[1]).toMatchObject({ found: ['BLOG.sites.test.'], ok: true });
  });

  it('counts a SERVFAIL as absent (the domain’s DNS is broken) and a time-out as inconclusive', () => {
    const broken = judge(expected, { kind: 'broken', code: 'ESERVFAIL' }, answer());
    expect(broken.verdict).toBe('absent');
    expect(broken.records[0]).toMatchObject({ found: [], error: 'ESERVFAIL' });
    expect(judge(expected, { kind: 'unreachable', code: 'ETIMEOUT', timedOut: true }, answer('blog.sites.test')).verdict).toBe('inconclusive');
  });

  it('does not let the CNAME decide', () => {
    expect(judge(expected, answer(), answer('blog.sites.test')).verdict).toBe('absent');
    expect(judge(expected, answer('tok123'), { kind: 'unreachable', code: 'ETIMEOUT', timedOut: true }).verdict).toBe('verified');
  });
});

describe('nextDomainState', () => {
  const FAIL_AFTER = 72 * HOUR;
  const pending: DomainState = { status: 'pending', verifiedAt: null, checkedAt: null, failingSince: null };

  it('verifies a pending domain and keeps verifiedAt across later passes', () => {
    const verified = nextDomainState(pending, 'verified', at(0), FAIL_AFTER);
    expect(verified).toEqual({ status: 'verified', verifiedAt: at(0), checkedAt: at(0), failingSince: null });
    expect(nextDomainState(verified, 'verified', at(24), FAIL_AFTER)).toEqual({ status: 'verified', verifiedAt: at(0), checkedAt: at(24), failingSince: null });
  });

  it('leaves a pending domain pending when the token is absent', () => {
    expect(nextDomainState(pending, 'absent', at(5), FAIL_AFTER)).toEqual({ ...pending, checkedAt: at(5) });
  });

  it('fails a verified domain only after the failures last FAIL_AFTER without a break', () => {
    let s = nextDomainState(pending, 'verified', at(0), FAIL_AFTER);
    s = nextDomainState(s, 'absent', at(24), FAIL_AFTER);
    expect(s).toMatchObject({ status: 'verified', failingSince: at(24) });
    s = nextDomainState(s, 'absent', at(48), FAIL_AFTER);
    s = nextDomainState(s, 'absent', at(95), FAIL_AFTER);
    expect(s).toMatchObject({ status: 'verified', failingSince: at(24) });
    s = nextDomainState(s, 'absent', at(96), FAIL_AFTER);
    expect(s).toEqual({ status: 'failed', verifiedAt: at(0), checkedAt: at(96), failingSince: at(24) });
  });

  it('starts counting again after a pass', () => {
    let s = nextDomainState(pending, 'verified', at(0), FAIL_AFTER);
    s = nextDomainState(s, 'absent', at(24), FAIL_AFTER);
    s = nextDomainState(s, 'verified', at(48), FAIL_AFTER);
    expect(s.failingSince).toBeNull();
    s = nextDomainState(s, 'absent', at(100), FAIL_AFTER);
    expect(s).toMatchObject({ status: 'verified', failingSince: at(100) });
  });

  it('brings a failed domain back on a pass, as a new verified run', () => {
    const failed: DomainState = { status: 'failed', verifiedAt: at(0), checkedAt: at(96), failingSince: at(24) };
    expect(nextDomainState(failed, 'absent', at(100), FAIL_AFTER)).toEqual({ ...failed, checkedAt: at(100) });
    expect(nextDomainState(failed, 'verified', at(100), FAIL_AFTER)).toEqual({
      status: 'verified',
      verifiedAt: at(100),
      checkedAt: at(100),
      failingSince: null,
    });
  });
});
