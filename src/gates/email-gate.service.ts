import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { Injectable, OnModuleInit } from '@nestjs/common';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

import { AppConfig } from '../config/app-config';
import { checkLeadEmail, MAX_EMAIL_LENGTH } from '../leads/email-address';
import { LeadsService } from '../leads/leads.service';
import { gatePage, PAGES } from '../sites/pages';
import type { SiteState } from '../sites/site-cache.service';
import { SiteRouter } from '../sites/site-router.service';
import { attemptCounter } from './attempt-counter';
import { safeNextPath } from './gate-cookie';

const PRIVATE_CACHE = 'private, no-store';

/**
 * The submit side of the email gate (the router already shows the form on every
 * path): rate limit per client address and site, validate, store the lead, then
 * hand out the same signed access cookie as the password gate.
 */
@Injectable()
export class EmailGate implements OnModuleInit {
  private limiter: RateLimiterPostgres;

  constructor(
    private readonly router: SiteRouter,
    private readonly leads: LeadsService,
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    // Its own window (LEADS_CAPTURE_WINDOW_SECONDS), in the gates' shared counter table.
    this.limiter = attemptCounter(this.dataSource, 'lead-capture', this.config.LEADS_CAPTURE_MAX_PER_WINDOW, this.config.LEADS_CAPTURE_WINDOW_SECONDS);
    this.router.registerGate('email', { submit: (site, form, ip, res) => this.submit(site, form, ip, res) });
  }

  async submit(site: SiteState, form: URLSearchParams, ip: string, res: ServerResponse): Promise<void> {
    const next = safeNextPath(form.get('next'));
    // A forwarded address is whatever the proxy passed on: keep the counter key within its column.
    const client = ip.length <= 64 ? ip : createHash('sha256').update(ip).digest('hex');
    const retryAfter = await this.consume(`${site.projectId}:${client}`);
    if (retryAfter > 0) {
      res.setHeader('Retry-After', String(retryAfter));
      return this.router.page(res, 429, PRIVATE_CACHE, PAGES.tooManyAttempts(retryAfter), false, true);
    }
    const raw = form.get('email');
    const checked = checkLeadEmail(raw);
    if (!checked.ok) {
      const value = Array.from((raw ?? '').trim())
        .slice(0, MAX_EMAIL_LENGTH + 1)
        .join('');
      const html = gatePage({ kind: 'email', siteName: site.name, next, error: checked.error, value });
      return this.router.page(res, 400, PRIVATE_CACHE, html, false, true);
    }
    const result = await this.leads.capture(site.projectId, checked.email);
    if (result === 'gone') return this.router.page(res, 404, PRIVATE_CACHE, PAGES.unknownSite(), false, true);
    this.router.gateEvent(site, 'email_captured');
    this.router.gateEvent(site, 'unlocked');
    this.router.grant(site, res, next);
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
