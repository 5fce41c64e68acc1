import { Injectable, Logger } from '@nestjs/common';
import { RateLimiterMemory } from 'rate-limiter-flexible';

import { buildView } from '../builds/build.view';
import { BuildsService } from '../builds/builds.service';
import type { BuildView } from '../builds/dto/build-views.dto';
import { type ApiError, payloadTooLarge, tooManyAttempts } from '../common/errors';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { readWebhook, type WebhookHeaders } from '../forges/webhooks/read-webhook';
import { GitSettingsService } from '../git/git-settings.service';
import { PreviewsService } from '../previews/previews.service';
import type { Principal } from '../shared/principal';
import { planDelivery } from './delivery-plan';
import { GitDeliveriesRepository } from './git-deliveries.repository';
import { hooksError } from './hooks.errors';

/** What POST /hooks/git/:projectId answers, with its status. */
export type HookAnswer =
  | { status: 200; body: { event: 'ping' } }
  | { status: 200; body: { duplicate: true; deliveryId: string } }
  | { status: 202; body: { ignored: string } }
  | { status: 202; body: { event: 'push' | 'pull_request'; build: BuildView } }
  | { status: 200; body: { event: 'push' | 'pull_request'; removed: string | null } };

/** Refused deliveries one client address may send a minute before it gets 429s (a forge with the right secret is never refused). */
export const REFUSALS_PER_MINUTE = 30;

/** How long a delivery id is remembered: forges redeliver within hours, and by hand within days. */
export const DELIVERY_RETENTION_DAYS = 30;

/**
 * The receiving side of forge webhooks (issue 29): a delivery is checked (size, the
 * project's secret, the payload), recorded by its delivery id so a redelivery starts
 * nothing, and turned into a build or an alias removal. See docs/forges.md.
 */
@Injectable()
export class HooksService {
  private readonly logger = new Logger('Hooks');
  /** In memory, per instance, like the TLS ask's budget: a PostgreSQL counter would load the database for requests anyone can send. */
  private readonly refusals = new RateLimiterMemory({ keyPrefix: 'git-hook-refusals', points: REFUSALS_PER_MINUTE, duration: 60 });

  constructor(
    private readonly git: GitSettingsService,
    private readonly builds: BuildsService,
    private readonly previews: PreviewsService,
    private readonly deliveries: GitDeliveriesRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  get maxBytes(): number {
    return this.config.GIT_WEBHOOK_MAX_BYTES;
  }

  /** 429 for an address past its refused deliveries, before its body is read. */
  async assertNotThrottled(address: string): Promise<void> {
    const spent = await this.refusals.get(address);
    if (spent && spent.consumedPoints >= REFUSALS_PER_MINUTE) {
      throw tooManyAttempts('Too many refused webhook deliveries from this address', spent.msBeforeNext);
    }
  }

  /** The 413 for a body over GIT_WEBHOOK_MAX_BYTES (declared or read). */
  tooLarge(declared?: number): ApiError {
    const size = declared === undefined ? 'over' : `${declared} bytes, over`;
    return payloadTooLarge(`the webhook payload is ${size} the limit of ${this.maxBytes} bytes (GIT_WEBHOOK_MAX_BYTES)`, { limit: this.maxBytes });
  }

  async receive(projectId: string, headers: WebhookHeaders, body: Buffer, address: string): Promise<HookAnswer> {
    const target = await this.git.webhookTarget(projectId);
    // An unknown project, or one without a secret, is checked against no secret at all: the
    // refusal is the one a wrong signature gets, word for word.
    const outcome = await readWebhook({ headers, body }, target?.secret ?? '', this.maxBytes);
    if (!outcome.ok) {
      if (outcome.problem === 'too_large') throw this.tooLarge(body.length);
      if (outcome.problem === 'malformed_payload') throw hooksError('invalid_webhook_payload', outcome.message);
      // No forge header, no signature, a wrong one: all unauthenticated, counted against the address.
      await this.refusals.penalty(address);
      throw hooksError('invalid_webhook_signature', outcome.message);
    }
    const { forge, deliveryId, eventName, event } = outcome;
    // Only a verified delivery reaches here, so target and its secret exist.
    const project = target!;
    if (project.forge === null) await this.git.rememberForge(project.projectId, forge);

    const plan = planDelivery(forge, event, project);
    if (plan.kind === 'ping') return { status: 200, body: { event: 'ping' } };
    if (plan.kind === 'ignored') return { status: 202, body: { ignored: plan.why } };
    if (plan.kind === 'mismatch') throw hooksError('repository_mismatch', plan.message);

    if (deliveryId !== null && !(await this.deliveries.claim(project.projectId, deliveryId, forge, eventName))) {
      return { status: 200, body: { duplicate: true, deliveryId } };
    }
    try {
      if (plan.kind === 'remove') {
        const removed = await this.previews.removeAlias(project.projectId, plan.alias, (m) =>
          this.builds.cancelForRemovedAlias(m, project.projectId, plan.alias),
        );
        return { status: 200, body: { event: plan.event, removed } };
      }
      const principal: Principal = { kind: 'token', workspaceId: project.workspaceId, scopes: ['deploy'], projectId: project.projectId };
      const build = await this.builds.start(principal, project.projectId, plan.start);
      return { status: 202, body: { event: plan.event, build: buildView(build) } };
    } catch (err) {
      // Nothing was started: forget the delivery, so the forge's retry (after a 503) or a
      // redelivery by hand (after a 402, once the quota allows) is acted on.
      if (deliveryId !== null) await this.deliveries.release(project.projectId, deliveryId);
      this.logger.debug(`delivery ${deliveryId ?? '(no id)'} of ${project.projectId} not acted on: ${(err as Error).message}`);
      throw err;
    }
  }

  /** Forgets delivery ids older than DELIVERY_RETENTION_DAYS (the maintenance job); how many. */
  purgeOldDeliveries(): Promise<number> {
    return this.deliveries.purgeBefore(new Date(this.clock.now().getTime() - DELIVERY_RETENTION_DAYS * 24 * 3600 * 1000));
  }
}
