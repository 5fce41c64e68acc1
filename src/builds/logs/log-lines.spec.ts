import { formatLines, LogCap } from './log-lines';

const at = new Date('2030-01-01T00:00:00.000Z');

describe('formatLines', () => {
  it('stamps each line with the time and the phase', () => {
    expect(formatLines(at, 'install', 'added 1 package\nup to date\n')).toBe(
      '2030-01-01T00:00:00.000Z [install] added 1 package\n2030-01-01T00:00:00.000Z [install] up to date\n',
    );
  });

  it('makes a line of output without a final newline, and keeps what a carriage return drew last', () => {
    expect(formatLines(at, 'build', 'progress 10%\rprogress 100%')).toBe('2030-01-01T00:00:00.000Z [build] progress 100%\n');
  });

  it('keeps a NUL as U+FFFD: PostgreSQL text cannot hold one, and the lines around it would be lost', () => {
    expect(formatLines(at, 'build', './a\u0000./b\n')).toBe('2030-01-01T00:00:00.000Z [build] ./a\uFFFD./b\n');
  });
});

describe('LogCap', () => {
  it('keeps text up to the limit, then one line that says where it was cut, then nothing', () => {
    const cap = new LogCap(120);
    const line = formatLines(at, 'build', 'x'.repeat(20));
    expect(cap.admit(line, at, 'build')).toBe(line);
    expect(cap.admit(line, at, 'build')).toBe(line);
    const note = cap.admit(line, at, 'build');
    expect(note).toContain('log cut here: it reached 120 bytes (BUILD_LOG_MAX_BYTES)');
    expect(cap.truncated).toBe(true);
    expect(cap.admit('short\n', at, 'build')).toBe('');
  });
});
