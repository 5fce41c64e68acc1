import type { Response } from 'supertest';

import type { TestApp } from './app';
import { asUser, type UserSession } from './identity';
import { site } from './sites';

let nextIp = 1;
/** A client address no other submission used (X-Forwarded-For is trusted in these apps). */
export function freshIp(): string {
  const n = nextIp++;
  return `198.18.${(n >> 8) & 255}.${n & 255}`;
}

/** Posts the email gate's form of `slug`, as a browser would. */
export function submitEmail(t: TestApp, slug: string, email: string, opts: { next?: string; ip?: string } = {}) {
  return site(t, slug)
    .post('/.statichost/gate')
    .set('X-Forwarded-For', opts.ip ?? freshIp())
    .type('form')
    .send({ email, next: opts.next ?? '/' });
}

export function cookieFrom(res: Response): string {
  const set = res.headers['set-cookie'] as unknown as string[] | undefined;
  if (!set?.length) throw new Error(`no Set-Cookie (status ${res.status})`);
  return set[0].split(';')[0];
}

/** A project with the email gate on, made through the API. */
export async function emailGatedProject(t: TestApp, owner: UserSession, slug: string, name = slug): Promise<string> {
  const res = await t.http().post('/projects').set(asUser(owner)).send({ name, slug, type: 'static_site', gate_type: 'email' });
  if (res.status !== 201) throw new Error(`create ${slug}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}
