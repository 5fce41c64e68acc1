import { keptFields, thankYouPath, wantsJson } from './form-intake.service';

describe('form intake helpers', () => {
  it('answers JSON only to a client that prefers it over HTML', () => {
    expect(wantsJson('application/json')).toBe(true);
    expect(wantsJson('application/json, text/plain, */*')).toBe(true);
    expect(wantsJson('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(false);
    expect(wantsJson('*/*')).toBe(false);
    expect(wantsJson(undefined)).toBe(false);
  });

  it('keeps the declared fields only, in the order sent, repeated names joined', () => {
    const form = { fields: ['email', 'topics', '__proto__'], honeypot: 'company' };
    const kept = keptFields(form, [
      ['form-name', 'signup'],
      ['topics', 'news'],
      ['company', 'spam inc'],
      ['email', 'a@example.com'],
      ['extra', 'dropped'],
      ['topics', 'jobs'],
      ['__proto__', 'plain value'],
    ]);
    expect(Object.entries(kept)).toEqual([
      ['topics', 'news, jobs'],
      ['email', 'a@example.com'],
      ['__proto__', 'plain value'],
    ]);
    expect(JSON.parse(JSON.stringify(kept))).toEqual({ topics: 'news, jobs', email: 'a@example.com', ['__proto__']: 'plain value' });
  });

  it('redirects to the action only when it names a file of the deployment', () => {
    const files = new Set(['thanks/index.html', 'done.html', 'sent']);
    const site = { hasFile: (p: string) => files.has(p) };
    expect(thankYouPath(site, { action: '/thanks/' })).toBe('/thanks/');
    expect(thankYouPath(site, { action: '/thanks' })).toBe('/thanks');
    expect(thankYouPath(site, { action: '/done' })).toBe('/done');
    expect(thankYouPath(site, { action: '/sent' })).toBe('/sent');
    expect(thankYouPath(site, { action: '/missing/' })).toBeNull();
    expect(thankYouPath(site, { action: '/%E0%A4%A' })).toBeNull();
    expect(thankYouPath(site, { action: null })).toBeNull();
  });
});
