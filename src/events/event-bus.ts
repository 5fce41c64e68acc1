import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import type { PlatformEvent } from './events';

/** Runs inside the emitter's transaction: what it writes (a delivery, a queued mail) exists exactly when the change does. */
export type EventListener = (m: EntityManager, event: PlatformEvent) => Promise<void>;

/**
 * The in-transaction event bus (issue 30). Emitters (deployments, builds, leads, forms,
 * domains, quotas) call `emit` with the manager of the transaction that made the change;
 * the modules that act on events (webhooks, notifications) `listen` at start-up and queue
 * their work in that same transaction, through the outbox. Nothing is sent from here, so
 * an event is never sent for a change that rolled back, and never lost for one that committed.
 */
@Injectable()
export class EventBus {
  private readonly listeners: EventListener[] = [];

  listen(listener: EventListener): void {
    this.listeners.push(listener);
  }

  async emit(m: EntityManager, event: PlatformEvent): Promise<void> {
    for (const listener of this.listeners) await listener(m, event);
  }
}
