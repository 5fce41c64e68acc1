import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import type { EventType, PlatformEvent } from './events';

/** What a listener writes for an event, in the emitter's transaction (a delivery, a queued mail). */
export type EventWrite = (m: EntityManager) => Promise<void>;

/**
 * Decides what an event needs, reading through `m` and never writing with it; returns the
 * writes to make, or undefined when the event needs nothing (no endpoint subscribed, no
 * one opted in). The split lets an emitter learn, before it opens a transaction, that no
 * listener will write, and then make its change in one statement (EventBus.plan).
 */
export type EventListener = (m: EntityManager, event: PlatformEvent) => Promise<EventWrite | undefined>;

/**
 * An SQL condition, false only when the listener would write nothing for an event of
 * `type` in the workspace that `workspace` (a parameter such as `$4`) names. A superset
 * is fine (true sends the emitter to its plan), a false that should be true loses events.
 * Lets an emitter fold "does anyone listen?" into its own statement (the form intake).
 */
export type InterestProbe = (type: EventType, workspace: string) => string;

/** The writes an event needs, decided by EventBus.plan before the emitter's transaction. */
export interface PlannedEvent {
  /** True when no listener has anything to write: the emitter may skip a transaction it opened only for them. */
  readonly empty: boolean;
  /** Makes the writes, in the emitter's transaction. */
  write(m: EntityManager): Promise<void>;
}

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
  private readonly probes: (InterestProbe | undefined)[] = [];

  /** `probe` says in SQL when the listener may write (see `interest`); without one it is assumed to always. */
  listen(listener: EventListener, probe?: InterestProbe): void {
    this.listeners.push(listener);
    this.probes.push(probe);
  }

  /**
   * An SQL condition, false only when no listener would write for an event of `type` in
   * the workspace `workspace` names: an emitter that finds it false in its own statement
   * needs no plan and no transaction for the listeners. Read in the same snapshot as the
   * emitter's write, it can miss only what a plan could miss too (an endpoint committed
   * after the statement began).
   */
  interest(type: EventType, workspace: string): string {
    const each = this.probes.map((probe) => (probe ? `(${probe(type, workspace)})` : 'true'));
    return each.length > 0 ? each.join(' OR ') : 'false';
  }

  /** Decides and writes, each listener in turn, all in the emitter's transaction. */
  async emit(m: EntityManager, event: PlatformEvent): Promise<void> {
    for (const listener of this.listeners) {
      const write = await listener(m, event);
      if (write) await write(m);
    }
  }

  /**
   * Decides through `reader` (outside the emitter's transaction) and returns the writes, to
   * make in it. What the listeners read can change before that transaction commits, as it
   * can between a read and the commit inside it (read committed): an endpoint created
   * meanwhile misses this event either way.
   */
  async plan(reader: EntityManager, event: PlatformEvent): Promise<PlannedEvent> {
    const writes: EventWrite[] = [];
    for (const listener of this.listeners) {
      const write = await listener(reader, event);
      if (write) writes.push(write);
    }
    return {
      empty: writes.length === 0,
      write: async (m) => {
        for (const write of writes) await write(m);
      },
    };
  }
}
