import type { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import type { SiteState } from '../site-cache.service';

/** A proxy rule's answer for one request: where to forward it, and the env var that signs it. */
export interface ProxyTarget {
  /** Absolute http(s) URL, captures and the passed-on query already rendered. */
  url: string;
  /** `Sign=NAME` of the rule: the project environment variable whose value signs the request, or null. */
  signed: string | null;
}

/**
 * Forwards a site request that a `_redirects` proxy rule (`/api/* https://api.example.com/:splat 200`)
 * matched to its origin, streaming both ways (issue 34).
 *
 * CONTRACT SKELETON: the lead engineer's interface commit; the forwarding itself
 * (SSRF checks at connect time, timeouts, header rules, signing, concurrency cap) is
 * being built on the h-proxy branch. Until then a proxy rule answers 502.
 */
@Injectable()
export class SiteProxy {
  /** Answers `res` (never throws for an origin's failure: those are 502/504 pages). */
  forward(site: SiteState, target: ProxyTarget, req: IncomingMessage, res: ServerResponse): void {
    void site;
    void target;
    void req;
    res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end('Proxy rules are not served yet.\n');
  }
}
