import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

import { addressKey } from '../common/address-prefix';
import { attemptCounter } from '../common/attempt-counter';
import { gatePage, PAGES } from '../common/site-pages';
import { AppConfig } from '../config/app-config';
import type { Gate, GatedSite } from './gate';
import { safeNextPath } from './gate-cookie';
import { GateResponses } from './gate-responses';
import { VISITOR_RECORDER, type VisitorRecorder } from './visitor-recorder';

/**
 * The email gate's submit: rate limit per client address and site, validate, record
 * the visitor (through VisitorRecorder: the leads module stores them), then hand out
 * the signed access cookie, naming the visitor's lead so that their form submissions
 * are linked to it (docs/forms.md).
 */
@Injectable()
export class EmailGate implements Gate, OnModuleInit {
  readonly type = 'email';
  private limiter: RateLimiterPostgres;

  constructor(
    private readonly responses: GateResponses,
    @Inject(VISITOR_RECORDER) private readonly visitors: VisitorRecorder,
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    // Its own window (LEADS_CAPTURE_WINDOW_SECONDS), in the gates' shared counter table.
    this.limiter = attemptCounter(this.dataSource, 'lead-capture', this.config.LEADS_CAPTURE_MAX_PER_WINDOW, this.config.LEADS_CAPTURE_WINDOW_SECONDS);
  }

  async submit(site: GatedSite, form: URLSearchParams, ip: string, res: ServerResponse): Promise<void> {
    const next = safeNextPath(form.get('next'));
    // An IPv6 client is its /64 (addressKey): one host commonly holds a whole /64 and could
    // otherwise send each email from a fresh address. The key stays within its column.
    const address = addressKey(ip);
    const client = address.length <= 64 ? address : createHash('sha256').update(address).digest('hex');
    const retryAfter = await this.consume(`${site.projectId}:${client}`);
    if (retryAfter > 0) return this.responses.tooManyAttempts(res, retryAfter);
    const raw = form.get('email');
    const checked = this.visitors.checkEmail(raw);
    if (!checked.ok) {
      const value = Array.from((raw ?? '').trim())
        .slice(0, this.visitors.maxEmailLength + 1)
        .join('');
      const html = gatePage({ kind: 'email', siteName: site.name, next, error: checked.error, value });
      return this.responses.page(res, 400, html);
    }
    const result = await this.visitors.record(site.projectId, checked.email);
    if (result === 'gone') return this.responses.page(res, 404, PAGES.unknownSite());
    this.responses.event(site, 'email_captured');
    this.responses.event(site, 'unlocked');
    this.responses.grant(site, res, next, result.leadId);
  }

  /** Counts every submission, valid or not; returns the seconds to wait, 0 when allowed. */
  private async consume(key: string): Promise<number> {
    try {
      await this.limiter.consume(key);
      return 0;
    } catch (err) {
      if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw err;
    }
  }
}
