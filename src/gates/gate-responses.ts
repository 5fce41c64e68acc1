import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import type { GateEvent } from '../analytics/analytics.entities';
import { AnalyticsRecorder } from '../analytics/analytics-recorder.service';
import { PAGE_HEADERS, PAGES } from '../common/site-pages';
import { AppConfig } from '../config/app-config';
import type { GatedSite } from './gate';
import { GateAccess } from './gate-access.service';

const PRIVATE_CACHE = 'private, no-store';
const HTML = 'text/html; charset=utf-8';

/**
 * What both gates send: their pages, the access grant, and the gate events they count.
 * Every gate answer depends on the visitor's cookie: private, never stored, Vary: Cookie.
 */
@Injectable()
export class GateResponses {
  private readonly hsts?: string;

  constructor(
    config: AppConfig,
    private readonly access: GateAccess,
    private readonly analytics: AnalyticsRecorder,
  ) {
    this.hsts = config.hstsHeader;
  }

  /** A built-in page (the gate's form, its errors) with the headers of the site router's pages. */
  page(res: ServerResponse, status: number, html: string, head = false): void {
    const body = Buffer.from(html);
    const headers: OutgoingHttpHeaders = {
      'Content-Type': HTML,
      'Content-Length': body.length,
      'Cache-Control': PRIVATE_CACHE,
      'X-Content-Type-Options': 'nosniff',
      ...PAGE_HEADERS,
      Vary: 'Cookie',
    };
    if (this.hsts) headers['Strict-Transport-Security'] = this.hsts;
    res.writeHead(status, headers);
    res.end(head ? undefined : body);
  }

  /** 429 with Retry-After: this client has tried too often. */
  tooManyAttempts(res: ServerResponse, retryAfter: number): void {
    res.setHeader('Retry-After', String(retryAfter));
    this.page(res, 429, PAGES.tooManyAttempts(retryAfter));
  }

  /** Sets the access cookie (naming the email gate's lead when given) and sends the visitor back to the page first asked for. */
  grant(site: GatedSite, res: ServerResponse, next: string, leadId?: string): void {
    res.writeHead(303, {
      Location: next,
      'Set-Cookie': this.access.accessCookie(site, leadId),
      'Cache-Control': PRIVATE_CACHE,
      Vary: 'Cookie',
      'Content-Length': 0,
      'X-Content-Type-Options': 'nosniff',
      ...(this.hsts ? { 'Strict-Transport-Security': this.hsts } : {}),
    });
    res.end();
  }

  /** Counts a gate event for analytics (not on preview addresses, as with page views). */
  event(site: GatedSite, event: GateEvent): void {
    if (site.preview !== true) this.analytics.gate(site.projectId, event);
  }
}
