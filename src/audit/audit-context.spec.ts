import { type AuditRequest, currentAuditRequest, detachAuditRequest, enterAuditRequest, inAuditRequest } from './audit-context';

const request = (requestId: string): AuditRequest => ({ requestId, ip: null, userAgent: null, actor: null, declared: null, recorded: 0 });
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the audit request context', () => {
  it('follows a request through its awaits, and keeps an overlapping one’s when the first ends, even if told twice', async () => {
    const seen: (string | null | undefined)[] = [];
    let resumeB!: () => void;
    const b = enterAuditRequest(request('b'), async () => {
      await new Promise<void>((resolve) => (resumeB = resolve));
      seen.push(currentAuditRequest()?.requestId);
    });
    const a = enterAuditRequest(request('a'), async () => {
      await tick();
      seen.push(currentAuditRequest()?.requestId);
    });
    await a.result;
    a.leave();
    a.leave();
    resumeB();
    await b.result;
    b.leave();
    expect(seen).toEqual(['a', 'b']);
    expect(currentAuditRequest()).toBeUndefined();
  });

  it('is off once no request is left: work a request left running sees none, and the next request has its own', async () => {
    let resume!: () => void;
    const seen: (string | null | undefined)[] = [];
    const first = enterAuditRequest(request('first'), () => {
      void new Promise<void>((resolve) => (resume = resolve)).then(() => seen.push(currentAuditRequest()?.requestId));
    });
    first.leave();
    resume();
    await tick();
    const next = enterAuditRequest(request('next'), async () => {
      await tick();
      return currentAuditRequest()?.requestId;
    });
    expect(await next.result).toBe('next');
    next.leave();
    expect(seen).toEqual([undefined]);
  });

  it('ends the request when its handler throws at once', () => {
    expect(() =>
      enterAuditRequest(request('x'), () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(currentAuditRequest()).toBeUndefined();
  });
  it('a detached copy, read while the request is served, is the context of work that runs after it ended', async () => {
    let reads = 0;
    const live: AuditRequest = {
      ...request('live'),
      get ip() {
        reads++;
        return '192.0.2.0/24';
      },
      userAgent: 'Firefox',
    };
    const entered = enterAuditRequest(live, () => detachAuditRequest());
    entered.leave();
    const copy = entered.result!;
    expect(reads).toBe(1);
    expect(currentAuditRequest()).toBeUndefined();
    const seen = await inAuditRequest(copy, async () => {
      await tick();
      return currentAuditRequest();
    });
    expect(seen).toMatchObject({ requestId: 'live', ip: '192.0.2.0/24', userAgent: 'Firefox' });
    expect(reads).toBe(1);
    expect(currentAuditRequest()).toBeUndefined();
    // Without a request (background work) there is nothing to copy, and the work runs as background work.
    expect(detachAuditRequest()).toBeUndefined();
    expect(await inAuditRequest(undefined, async () => currentAuditRequest())).toBeUndefined();
  });
});
