import { Logger } from '@nestjs/common';

import { DeferredWork } from './deferred-work';

describe('DeferredWork', () => {
  it('starts the work after the caller’s turn of the event loop, not during it', async () => {
    const deferred = new DeferredWork();
    const log: string[] = [];
    deferred.run('test', async () => {
      log.push('work');
    });
    log.push('caller');
    await Promise.resolve();
    log.push('caller’s microtasks');
    await deferred.settled();
    expect(log).toEqual(['caller', 'caller’s microtasks', 'work']);
  });

  it('logs a failure instead of throwing it, and forgets the work', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const deferred = new DeferredWork();
      deferred.run('an audit entry', () => Promise.reject(new Error('database gone')));
      await deferred.settled();
      expect(errors).toHaveBeenCalledWith('an audit entry failed: database gone');
    } finally {
      errors.mockRestore();
    }
  });

  it('settles (and lets shutdown go on) only once work started by other work has ended too', async () => {
    const deferred = new DeferredWork();
    const log: string[] = [];
    deferred.run('outer', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      deferred.run('inner', async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        log.push('inner');
      });
      log.push('outer');
    });
    await deferred.onModuleDestroy();
    expect(log).toEqual(['outer', 'inner']);
  });
});
