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
  it('hands each event to every listener in turn, with the emitter’s manager', async () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.listen(async (m, e) => void seen.push(`a:${e.type}:${m === manager}`));
    bus.listen(async (_m, e) => void seen.push(`b:${e.type}`));
    await bus.emit(manager, lead);
    expect(seen).toEqual(['a:lead.captured:true', 'b:lead.captured']);
  });

  it('lets a listener’s failure reach the emitter, so the change rolls back with it', async () => {
    const bus = new EventBus();
    bus.listen(async () => {
      throw new Error('queue full');
    });
    await expect(bus.emit(manager, lead)).rejects.toThrow('queue full');
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
