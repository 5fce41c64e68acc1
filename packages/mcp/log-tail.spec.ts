import { logTail } from './log-tail';

describe('logTail', () => {
  const log = ['2026-01-01T00:00:00.000Z [clone] one', '2026-01-01T00:00:01.000Z [build] two', '2026-01-01T00:00:02.000Z [build] three', ''].join('\n');

  it('keeps the whole log when it fits', () => {
    expect(logTail(log, 10, 10_000)).toEqual({ text: log, lines: 3, truncated: false });
  });

  it('keeps the last lines, and says earlier ones exist', () => {
    expect(logTail(log, 2, 10_000)).toEqual({ text: `${log.split('\n').slice(1).join('\n')}`, lines: 2, truncated: true });
  });

  it('stays under the byte bound by dropping whole lines, never cutting one', () => {
    const line = (n: number) => `${'é'.repeat(10)} ${n}`;
    const long = `${[1, 2, 3, 4].map(line).join('\n')}\n`;
    const oneLine = Buffer.byteLength(`${line(1)}\n`);
    const tail = logTail(long, 100, oneLine * 2 + 1);
    expect(tail).toEqual({ text: `${line(3)}\n${line(4)}\n`, lines: 2, truncated: true });
    expect(Buffer.byteLength(tail.text)).toBeLessThanOrEqual(oneLine * 2 + 1);
  });

  it('answers nothing for an empty log', () => {
    expect(logTail('', 10, 100)).toEqual({ text: '', lines: 0, truncated: false });
  });

  it('gives the end of a last line larger than the bound, in whole characters', () => {
    expect(logTail(`start ${'x'.repeat(200)}end\n`, 10, 11)).toEqual({ text: 'xxxxxxxend\n', lines: 1, truncated: true });
    expect(logTail(`${'é'.repeat(50)}\n`, 10, 6)).toEqual({ text: 'éé\n', lines: 1, truncated: true });
  });
});
