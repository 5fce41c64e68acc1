import type { ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import { gatePage } from '../common/site-pages';
import type { Gate, GatedSite } from './gate';
import { GateAccess } from './gate-access.service';
import { safeNextPath } from './gate-cookie';
import { GateResponses } from './gate-responses';

/** Longer submissions are refused without hashing them. */
const PASSWORD_LIMIT = 1024;

/** The password gate's submit: brute-force limit per client address and site, then the password check. */
@Injectable()
export class PasswordGate implements Gate {
  readonly type = 'password';

  constructor(
    private readonly access: GateAccess,
    private readonly responses: GateResponses,
  ) {}

  async submit(site: GatedSite, form: URLSearchParams, ip: string, res: ServerResponse): Promise<void> {
    const next = safeNextPath(form.get('next'));
    const password = form.get('password') ?? '';
    // Only a password that is hashed takes a try; an empty or oversized one is refused as
    // wrong without using one (it tells nothing of the password), but not past the limit.
    const checked = password.length > 0 && password.length <= PASSWORD_LIMIT;
    const retryAfter = checked ? await this.access.reservePasswordTry(site, ip) : await this.access.passwordRetryAfter(site, ip);
    if (retryAfter > 0) return this.responses.tooManyAttempts(res, retryAfter);
    const ok = checked && (await this.access.checkPassword(site, ip, password));
    if (!ok) {
      this.responses.event(site, 'wrong_password');
      const html = gatePage({ kind: 'password', siteName: site.name, next, error: 'That password is not right. Try again.' });
      return this.responses.page(res, 401, html);
    }
    this.responses.event(site, 'unlocked');
    this.responses.grant(site, res, next);
  }
}
