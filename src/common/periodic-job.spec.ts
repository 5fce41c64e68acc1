import { MAINTENANCE_QUEUE, PeriodicJob } from './periodic-job';

/** A job whose rounds end when the test says so, recording when each began and ended. */
class HeldJob extends PeriodicJob<string> {
  private release: (() => void)[] = [];

  constructor(
    private readonly label: string,
    private readonly log: string[],
    queue?: string,
  ) {
    super(label, 0, undefined, queue);
  }

  protected async work(): Promise<string> {
    this.log.push(`${this.label} begins`);
    await new Promise<void>((resolve) => this.release.push(resolve));
    this.log.push(`${this.label} ends`);
    return this.label;
  }

  run(): Promise<string | undefined> {
    return this.trigger();
  }

  finish(): void {
    this.release.shift()?.();
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PeriodicJob queues', () => {
  it('runs the rounds of one queue one after another, in the order they were asked for', async () => {
    const log: string[] = [];
    const sweep = new HeldJob('sweep', log, MAINTENANCE_QUEUE);
    const collect = new HeldJob('collect', log, MAINTENANCE_QUEUE);
    const both = [sweep.run(), collect.run()];
    await settle();
    expect(log).toEqual(['sweep begins']);
    sweep.finish();
    await settle();
    expect(log).toEqual(['sweep begins', 'sweep ends', 'collect begins']);
    collect.finish();
    await expect(Promise.all(both)).resolves.toEqual(['sweep', 'collect']);
  });

  it('lets a round that failed hand the turn on', async () => {
    const log: string[] = [];
    class Failing extends PeriodicJob<void> {
      constructor() {
        super('failing', 0, undefined, 'q-fail');
      }
      protected work(): Promise<void> {
        return Promise.reject(new Error('disk full'));
      }
      run() {
        return this.trigger();
      }
    }
    const next = new HeldJob('next', log, 'q-fail');
    const failed = new Failing().run();
    const after = next.run();
    await expect(failed).rejects.toThrow('disk full');
    await settle();
    expect(log).toEqual(['next begins']);
    next.finish();
    await expect(after).resolves.toBe('next');
  });

  it('runs jobs without a queue side by side', async () => {
    const log: string[] = [];
    const a = new HeldJob('a', log);
    const b = new HeldJob('b', log);
    const both = [a.run(), b.run()];
    await settle();
    expect(log).toEqual(['a begins', 'b begins']);
    a.finish();
    b.finish();
    await Promise.all(both);
  });
});

describe('PeriodicJob timer', () => {
  afterEach(() => jest.useRealTimers());

  it('skips the ticks a job says are not due, and runs the next one that is', async () => {
    jest.useFakeTimers();
    const rounds: number[] = [];
    class Paced extends PeriodicJob<void> {
      due = true;
      constructor() {
        super('paced', 1);
      }
      protected override dueOnTimer(): boolean {
        return this.due;
      }
      protected work(): Promise<void> {
        rounds.push(Date.now());
        return Promise.resolve();
      }
    }
    const job = new Paced();
    job.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(rounds).toHaveLength(1);
    job.due = false;
    await jest.advanceTimersByTimeAsync(3_000);
    expect(rounds).toHaveLength(1);
    job.due = true;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(rounds).toHaveLength(2);
    await job.onModuleDestroy();
  });
});
