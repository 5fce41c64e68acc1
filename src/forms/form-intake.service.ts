import { createHmac } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

import { AnalyticsRecorder } from '../analytics/analytics-recorder.service';
import { addressKey } from '../common/address-prefix';
import { attemptCounter } from '../common/attempt-counter';
import { isForeignKeyViolation } from '../common/db-errors';
import { newId } from '../common/ids';
import { messagePage, PAGE_HEADERS } from '../common/site-pages';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus } from '../events/event-bus';
import type { PlatformEvent } from '../events/events';
import { LeadsKeyring } from '../leads/keyring';
import type { DeclaredForm } from '../shared/forms/declared-form';
import { FORM_NAME_FIELD } from '../shared/forms/extract';
import { type FormBody, readFormBody } from './form-body';
import { FormIntakeRepository } from './form-intake.repository';
import { fieldTokens, sealFields, submissionAad, type SubmissionFields } from './submission-crypto';

/** What the site router hands over of the site a form was posted to (forms/ never imports sites/). */
export interface FormSite {
  projectId: string;
  slug: string;
  name: string;
  /** The deployment that served the form: its declared forms decide what a post may name. */
  deploymentId: string;
  forms: DeclaredForm[];
  /** True when the deployment has this file (a path without the leading slash). */
  hasFile(path: string): boolean;
  /**
   * The email gate's lead named by the visitor's genuine gate cookie, else null: linked
   * only if it is still a lead of this project when the submission is stored.
   */
  leadId: string | null;
}

const HTML = 'text/html; charset=utf-8';
const MAX_REMEMBERED_FORMS = 10_000;

interface FormRef {
  id: string;
  workspaceId: string;
}

const refKey = (projectId: string, name: string) => `${projectId}\0${name}`;
const JSON_TYPE = 'application/json; charset=utf-8';

type Refusal = Extract<FormBody, { ok: false }> | { ok: false; status: 400 | 404 | 429; code: string; message: string };

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
};

/**
 * A visitor's post of a form on a hosted site (issue 30, docs/forms.md): read within the
 * limits, checked against the forms the served deployment declares, judged (honeypot,
 * per-visitor rate), sealed with the leads keyring and stored with the form's counters in
 * one transaction, which also emits `form.submitted` for a submission that is not spam.
 */
@Injectable()
export class FormIntake {
  private readonly logger = new Logger(FormIntake.name);
  private readonly limiter;
  /** The same per client address, whatever the user agent (FORMS_RATE_LIMIT_ADDRESS_MAX). */
  private readonly addressLimiter;
  /**
   * The counters' key when analytics has no day key (analytics off), and always for the
   * per-address counter: derived from the leads keyring's index key, which every instance
   * shares and which changes only with a reindex, so a client behind a balancer meets one allowance, not one per instance (a key of
   * each instance's own gave N), and a restart or midnight does not reset the counts.
   */
  private stableKeyValue?: Buffer;
  /** (project, form name) → the form's id and workspace. */
  private readonly refs = new Map<string, FormRef>();
  /** The EventBus's SQL for "a form.submitted listener would write" on `$4` (the workspace); composed at the first post, once every listener is in. */
  private heard?: string;

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly rows: FormIntakeRepository,
    private readonly keyring: LeadsKeyring,
    private readonly events: EventBus,
    private readonly analytics: AnalyticsRecorder,
    private readonly clock: Clock,
  ) {
    // Twice the allowance: the second half is kept as spam (it may be a real visitor), past it 429.
    this.limiter = attemptCounter(dataSource, 'form-submit', config.FORMS_RATE_LIMIT_MAX * 2, config.FORMS_RATE_LIMIT_WINDOW_SECONDS);
    this.addressLimiter = attemptCounter(dataSource, 'form-submit-address', config.FORMS_RATE_LIMIT_ADDRESS_MAX * 2, config.FORMS_RATE_LIMIT_WINDOW_SECONDS);
  }

  async submit(site: FormSite, req: IncomingMessage, res: ServerResponse, clientIp: string): Promise<void> {
    const json = wantsJson(req.headers.accept);
    const body = await readFormBody(req, {
      maxFields: this.config.FORMS_MAX_FIELDS,
      maxFieldBytes: this.config.FORMS_MAX_FIELD_BYTES,
      maxTotalBytes: this.config.FORMS_MAX_TOTAL_BYTES,
    });
    if (!body.ok) return this.refuse(res, json, body);
    const formName = body.fields.find(([name]) => name === FORM_NAME_FIELD)?.[1];
    if (formName === undefined || formName === '') {
      return this.refuse(res, json, {
        ok: false,
        status: 400,
        code: 'form_name_missing',
        message: `The submission has no "${FORM_NAME_FIELD}" field naming its form.`,
      });
    }
    const form = site.forms.find((f) => f.name === formName);
    if (!form) {
      return this.refuse(res, json, { ok: false, status: 404, code: 'form_not_found', message: `This site has no form named "${formName.slice(0, 128)}".` });
    }
    const honeypot = !!form.honeypot && body.fields.some(([name, value]) => name === form.honeypot && value !== '');
    const fields = keptFields(form, body.fields);
    const now = this.clock.now();
    const id = newId('fsub');
    const ref = await this.formRef(site.projectId, form);
    if (!ref) return this.refuse(res, json, { ok: false, status: 404, code: 'form_not_found', message: 'This site no longer exists.' });
    const key = this.keyring.current;
    const sealed = sealFields(key.key, fields, submissionAad(ref.id, id));
    const submission = {
      id,
      formId: ref.id,
      projectId: site.projectId,
      workspaceId: ref.workspaceId,
      deploymentId: site.deploymentId,
      keyId: key.id,
      nonce: sealed.nonce,
      ciphertext: sealed.ciphertext,
      indexKeyId: this.keyring.indexKeyId,
      searchTokens: fieldTokens(this.keyring.index(ref.workspaceId), fields),
      spamReason: honeypot ? 'honeypot' : null,
      leadId: site.leadId,
      createdAt: now,
    };
    const visitor = this.visitorKey(site.projectId, clientIp, req.headers['user-agent'] ?? '');
    const address = this.addressOf(site.projectId, clientIp);
    // First the common case in one statement: no `form.submitted` listener would write (no
    // endpoint subscribed, no digest wanted), so the visitor's rate counter, the submission
    // and its counters are written together. When one would, that statement writes nothing
    // and the post goes the long way: the listeners decide (EventBus.plan, outside any
    // transaction), the rate is consumed (a post past the allowance is spam and is heard by
    // no one), then the listeners' writes and the store share a transaction, the store
    // (which takes a counter row's lock until the commit) last.
    const nowMs = Date.now();
    const counted = await this.rows.storeCountedSubmission(
      submission,
      {
        key: this.limiter.getKey(visitor),
        addressKey: this.addressLimiter.getKey(address),
        nowMs,
        windowMs: this.config.FORMS_RATE_LIMIT_WINDOW_SECONDS * 1000,
        max: this.config.FORMS_RATE_LIMIT_MAX,
        addressMax: this.config.FORMS_RATE_LIMIT_ADDRESS_MAX,
      },
      (this.heard ??= this.events.interest('form.submitted', '$4')),
    );
    let stored: boolean;
    let retryAfter = 0;
    if (counted !== 'heard') {
      if (counted.points > this.config.FORMS_RATE_LIMIT_MAX * 2) retryAfter = retryAfterSeconds(counted.expireMs - nowMs);
      if (counted.addressPoints > this.config.FORMS_RATE_LIMIT_ADDRESS_MAX * 2) {
        retryAfter = Math.max(retryAfter, retryAfterSeconds(counted.addressExpireMs - nowMs));
      }
      stored = counted.spam !== null;
    } else {
      const event: PlatformEvent = {
        type: 'form.submitted',
        workspaceId: ref.workspaceId,
        timestamp: now,
        data: { projectId: site.projectId, projectSlug: site.slug, formId: ref.id, formName: form.name, submissionId: id },
        personal: { fields },
      };
      const planned = await this.events.plan(this.dataSource.manager, event);
      const rate = await this.consume(visitor, address);
      retryAfter = rate.retryAfter;
      if (retryAfter > 0) stored = false;
      else if (rate.over) stored = await this.rows.storeSubmission(this.dataSource.manager, { ...submission, spam: true, spamReason: 'rate_limited' });
      else if (planned.empty) stored = await this.rows.storeSubmission(this.dataSource.manager, { ...submission, spam: false });
      else
        stored = await this.dataSource
          .transaction(async (m) => {
            await planned.write(m);
            // Gone (the project deleted meanwhile): what the listeners queued rolls back with it.
            if (!(await this.rows.storeSubmission(m, { ...submission, spam: false }))) throw new FormGone();
            return true;
          })
          .catch((err) => {
            // The listeners' rows name the project too (a digest item's foreign key): deleted first, they fail first.
            if (err instanceof FormGone || isForeignKeyViolation(err)) return false;
            throw err;
          });
    }
    if (retryAfter > 0) {
      res.setHeader('Retry-After', String(retryAfter));
      return this.refuse(res, json, {
        ok: false,
        status: 429,
        code: 'rate_limited',
        message: `Too many submissions from you. Try again in ${retryAfter} seconds.`,
      });
    }
    if (!stored) {
      this.refs.delete(refKey(site.projectId, form.name));
      return this.refuse(res, json, { ok: false, status: 404, code: 'form_not_found', message: 'This site no longer exists.' });
    }
    // Spam is answered exactly as a success (as Netlify does): a bot learns nothing from it.
    if (json) return this.send(res, 200, JSON_TYPE, JSON.stringify({ ok: true, id, form: form.name }));
    const thanks = thankYouPath(site, form);
    if (thanks) {
      res.writeHead(303, { Location: thanks, 'Cache-Control': 'no-store', 'Content-Length': '0', 'X-Content-Type-Options': 'nosniff' });
      res.end();
      return;
    }
    this.send(res, 200, HTML, messagePage('Thank you', `Your submission to ${site.name} was received.`), PAGE_HEADERS);
  }

  /** The form's id and workspace, remembered: a form row is never renamed, and a deleted one is forgotten when a store finds it gone. */
  private async formRef(projectId: string, form: DeclaredForm): Promise<FormRef | undefined> {
    const k = refKey(projectId, form.name);
    const known = this.refs.get(k);
    if (known) return known;
    const ref = await this.rows.formRef(projectId, form);
    if (ref) {
      if (this.refs.size >= MAX_REMEMBERED_FORMS) this.refs.clear();
      this.refs.set(k, ref);
    }
    return ref;
  }

  /** The visitor of this site whose posts are counted; both paths of `submit` count in the limiter's row for it (`limiter.getKey`). */
  private visitorKey(projectId: string, ip: string, ua: string): string {
    const hash = this.analytics.visitorHash(projectId, ip, ua) ?? this.stableHash(projectId, ip, ua);
    return `${projectId}:${hash.toString('base64url')}`;
  }

  private stableHash(projectId: string, ip: string, ua: string): Buffer {
    this.stableKeyValue ??= this.keyring.derivedKey('form-rate-key:v1');
    return createHmac('sha256', this.stableKeyValue).update(`${projectId}\0${ip}\0${ua}`).digest();
  }

  /**
   * The client address of this site whose posts are counted, whatever their user agents: an
   * IPv4 address or an IPv6 /64 (addressKey), keyed as a visitor without one (its own
   * limiter prefix keeps it apart from a visitor's row).
   */
  private addressOf(projectId: string, ip: string): string {
    return `${projectId}:${this.stableHash(projectId, addressKey(ip), '').toString('base64url')}`;
  }

  /**
   * Points used by this visitor, and by its address, on this site in the window: `over`
   * past either allowance (kept as spam), `retryAfter` past twice either.
   */
  private async consume(visitor: string, address: string): Promise<{ over: boolean; retryAfter: number }> {
    const [mine, shared] = await Promise.all([
      this.consumeOne(this.limiter, visitor, this.config.FORMS_RATE_LIMIT_MAX),
      this.consumeOne(this.addressLimiter, address, this.config.FORMS_RATE_LIMIT_ADDRESS_MAX),
    ]);
    return { over: mine.over || shared.over, retryAfter: Math.max(mine.retryAfter, shared.retryAfter) };
  }

  private async consumeOne(limiter: FormIntake['limiter'], key: string, max: number): Promise<{ over: boolean; retryAfter: number }> {
    try {
      const used = await limiter.consume(key);
      return { over: used.consumedPoints > max, retryAfter: 0 };
    } catch (err) {
      if (err instanceof RateLimiterRes) return { over: true, retryAfter: retryAfterSeconds(err.msBeforeNext) };
      throw err;
    }
  }

  private refuse(res: ServerResponse, json: boolean, refusal: Refusal): void {
    if (json) {
      const body = { statusCode: refusal.status, error: STATUS_TEXT[refusal.status], message: refusal.message, code: refusal.code };
      return this.send(res, refusal.status, JSON_TYPE, JSON.stringify(body));
    }
    this.send(res, refusal.status, HTML, messagePage(titleOf(refusal.status), refusal.message), PAGE_HEADERS);
  }

  private send(res: ServerResponse, status: number, type: string, text: string, extra: Readonly<Record<string, string>> = {}): void {
    const body = Buffer.from(text);
    const headers: OutgoingHttpHeaders = {
      'Content-Type': type,
      'Content-Length': body.length,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      ...extra,
    };
    res.writeHead(status, headers);
    res.end(body);
  }
}

/** Whole seconds a refused visitor should wait, at least 1. */
const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** Thrown inside the submission's transaction to roll it back when its form row is gone. */
class FormGone extends Error {}

function titleOf(status: number): string {
  if (status === 415) return 'Not accepted';
  if (status === 413) return 'Too large';
  if (status === 429) return 'Too many submissions';
  if (status === 404) return 'Form not found';
  return 'Submission not accepted';
}

/** JSON for a `fetch` that asks for it; a browser's form post (Accept: text/html…) gets pages. */
export function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((t) => t.split(';')[0].trim().toLowerCase());
  const jsonAt = types.indexOf('application/json');
  const htmlAt = types.indexOf('text/html');
  return jsonAt !== -1 && (htmlAt === -1 || jsonAt < htmlAt);
}

/**
 * What is kept of a post: the declared fields only (what the HTML had at deploy, as
 * Netlify does), in the order sent, without `form-name` and the honeypot; a name sent
 * several times (checkboxes) is one value, joined with ", ".
 */
export function keptFields(form: Pick<DeclaredForm, 'fields' | 'honeypot'>, sent: [string, string][]): SubmissionFields {
  const declared = new Set(form.fields);
  // No prototype: a field named __proto__ is a field like any other.
  const fields = Object.create(null) as SubmissionFields;
  for (const [name, value] of sent) {
    if (!declared.has(name) || name === FORM_NAME_FIELD || name === form.honeypot) continue;
    fields[name] = Object.hasOwn(fields, name) ? `${fields[name]}, ${value}` : value;
  }
  return fields;
}

/** The form's `action` when it names one of the deployment's files (`/thanks/` → thanks/index.html), else null. */
export function thankYouPath(site: Pick<FormSite, 'hasFile'>, form: Pick<DeclaredForm, 'action'>): string | null {
  if (!form.action) return null;
  let path: string;
  try {
    path = decodeURIComponent(form.action).slice(1);
  } catch {
    return null;
  }
  const candidates = path === '' || path.endsWith('/') ? [`${path}index.html`] : [path, `${path}.html`, `${path}/index.html`];
  return candidates.some((p) => site.hasFile(p)) ? form.action : null;
}
