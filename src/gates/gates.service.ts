import type { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import { clientAddress } from '../common/client-address';
import { GATE_PATH, gatePage } from '../common/site-pages';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EmailGate } from './email-gate.service';
import type { Gate, GatedSite } from './gate';
import { GateAccess } from './gate-access.service';
import { safeNextPath } from './gate-cookie';
import { GateResponses } from './gate-responses';
import { PasswordGate } from './password-gate.service';

const GATE_FORM_LIMIT = 16 * 1024;

/**
 * What the site router asks of the gates: does this visitor have access, and, when
 * not, answer the request (the gate's form, or its submission to GATE_PATH).
 */
@Injectable()
export class Gates {
  private readonly byType: ReadonlyMap<string, Gate>;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly access: GateAccess,
    private readonly responses: GateResponses,
    password: PasswordGate,
    email: EmailGate,
  ) {
    this.byType = new Map<string, Gate>([password, email].map((gate) => [gate.type, gate]));
  }

  /** The gate cookie check, memoised per site state by cookie header (HMAC once per visitor). */
  hasAccess(site: GatedSite, cookie: string | undefined): boolean {
    if (!cookie) return false;
    const grants = (site.grants ??= new Map());
    const until = grants.get(cookie);
    const nowSeconds = this.clock.nowMs() / 1000;
    if (until !== undefined) return until > nowSeconds;
    const expiresAt = this.access.accessUntil(site, cookie);
    if (expiresAt === undefined) return false;
    if (grants.size < 10_000) grants.set(cookie, expiresAt);
    return expiresAt > nowSeconds;
  }

  /** The email gate's lead this visitor's cookie names, null for none (see GateAccess.leadOf). */
  leadOf(site: GatedSite, cookie: string | undefined): string | null {
    return this.access.leadOf(site, cookie);
  }

  /** A gated site without a valid cookie: the gate's form, for every path and method. */
  async answer(site: GatedSite, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const gate = this.byType.get(site.gateType);
    if (req.method === 'POST' && path === GATE_PATH && gate) {
      const form = await readForm(req);
      if (!form) return this.responses.page(res, 413, gatePage({ kind: gate.type, siteName: site.name, next: '/', error: 'The form was too large.' }));
      return gate.submit(site, form, clientAddress(req, this.config.trustProxy), res);
    }
    const next = path === GATE_PATH ? '/' : safeNextPath(req.url);
    const kind = site.gateType === 'email' ? 'email' : 'password';
    if (req.method === 'GET') this.responses.event(site, 'gate_view');
    return this.responses.page(res, 401, gatePage({ kind, siteName: site.name, next }), req.method === 'HEAD');
  }
}

/** Reads a small urlencoded form body; undefined when it is too large. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATE_FORM_LIMIT) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
