import type { EntityManager } from 'typeorm';

import { EventBus } from './event-bus';
import { eventBody, type PlatformEvent } from './events';

const manager = {} as EntityManager;
const lead: PlatformEvent = {
  type: 'lead.captured',
  workspaceId: 'ws_1',
  timestamp: new Date('2026-11-26T12:00:00.000Z'),
  data: { projectId: 'proj_1', projectSlug: 'site', leadId: 'lead_1' },
  personal: { email: 'ann@example.com' },
};

describe('EventBus', () => {
  it('hands each event to every listener in turn, with the emitter’s manager, and makes each one’s writes before the next decides', async () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.listen(async (m, e) => {
      seen.push(`a decides:${e.type}:${m === manager}`);
      return async (w) => void seen.push(`a writes:${w === manager}`);
    });
    bus.listen(async (_m, e) => {
      seen.push(`b decides:${e.type}`);
      return undefined;
    });
    await bus.emit(manager, lead);
    expect(seen).toEqual(['a decides:lead.captured:true', 'a writes:true', 'b decides:lead.captured']);
  });

  it('lets a listener’s failure reach the emitter, so the change rolls back with it', async () => {
    const bus = new EventBus();
    bus.listen(async () => {
      throw new Error('queue full');
    });
    await expect(bus.emit(manager, lead)).rejects.toThrow('queue full');
  });

  it('plans through the reader and writes later in the transaction it is given; empty when no listener has anything to write', async () => {
    const bus = new EventBus();
    const reader = {} as EntityManager;
    const seen: string[] = [];
    bus.listen(async (m) => {
      seen.push(`decides with the reader:${m === reader}`);
      return undefined;
    });
    expect((await bus.plan(reader, lead)).empty).toBe(true);
    bus.listen(async () => async (m) => void seen.push(`writes in the transaction:${m === manager}`));
    const planned = await bus.plan(reader, lead);
    expect(planned.empty).toBe(false);
    expect(seen).toEqual(['decides with the reader:true', 'decides with the reader:true']);
    await planned.write(manager);
    expect(seen).toEqual(['decides with the reader:true', 'decides with the reader:true', 'writes in the transaction:true']);
  });
});

describe('EventBus.interest', () => {
  it('is false with no listener, any listener’s probe otherwise, and true for a listener that gave none', () => {
    const bus = new EventBus();
    expect(bus.interest('form.submitted', '$4')).toBe('false');
    bus.listen(
      async () => undefined,
      (type, ws) => `EXISTS (SELECT 1 FROM t WHERE w = ${ws} AND e = '${type}')`,
    );
    expect(bus.interest('form.submitted', '$4')).toBe(`(EXISTS (SELECT 1 FROM t WHERE w = $4 AND e = 'form.submitted'))`);
    bus.listen(async () => undefined);
    expect(bus.interest('lead.captured', '$2')).toBe(`(EXISTS (SELECT 1 FROM t WHERE w = $2 AND e = 'lead.captured')) OR true`);
  });
});

describe('eventBody', () => {
  it('leaves personal data out unless the endpoint asked for it', () => {
    expect(eventBody(lead, false)).toEqual({
      type: 'lead.captured',
      timestamp: '2026-11-26T12:00:00.000Z',
      workspaceId: 'ws_1',
      data: { projectId: 'proj_1', projectSlug: 'site', leadId: 'lead_1' },
    });
    expect(eventBody(lead, true).data).toEqual({ projectId: 'proj_1', projectSlug: 'site', leadId: 'lead_1', email: 'ann@example.com' });
  });
});
