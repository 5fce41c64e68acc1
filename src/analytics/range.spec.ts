import { type ApiError } from '../common/errors';
import { buckets, parseRange } from './range';

const now = new Date('2026-11-23T13:45:00.000Z');

function fieldOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return (err as ApiError).body().field;
  }
  return 'no error';
}

describe('parseRange', () => {
  it('defaults to the last 30 days by day, whole days', () => {
    const r = parseRange({}, now);
    expect(r).toEqual({ from: new Date('2026-10-24T00:00:00Z'), to: new Date('2026-11-24T00:00:00Z'), interval: 'day' });
    expect(buckets(r)).toHaveLength(31);
  });

  it('rounds hours out and includes a date-only `to`', () => {
    expect(parseRange({ from: '2026-11-23T10:30:00Z', to: '2026-11-23T12:10:00Z', interval: 'hour' }, now)).toEqual({
      from: new Date('2026-11-23T10:00:00Z'),
      to: new Date('2026-11-23T13:00:00Z'),
      interval: 'hour',
    });
    const days = parseRange({ from: '2026-11-01', to: '2026-11-03' }, now);
    expect(buckets(days).map((d) => d.toISOString().slice(0, 10))).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
  });

  it('names the field of every bad range', () => {
    expect(fieldOf(() => parseRange({ interval: 'week' }, now))).toBe('interval');
    expect(fieldOf(() => parseRange({ from: 'yesterday' }, now))).toBe('from');
    expect(fieldOf(() => parseRange({ to: '2026-11-23T10:00:00' }, now))).toBe('to');
    expect(fieldOf(() => parseRange({ from: '2026-11-23', to: '2026-11-22' }, now))).toBe('to');
    expect(fieldOf(() => parseRange({ from: '2025-01-01', to: '2026-11-22' }, now))).toBe('to');
    expect(fieldOf(() => parseRange({ from: '2025-10-20', to: '2026-11-23' }, now))).toBe('no error');
    // Outside what PostgreSQL's dates read: a 400, not the database's error.
    expect(fieldOf(() => parseRange({ from: '0000-01-01', to: '0000-01-05' }, now))).toBe('to');
    expect(fieldOf(() => parseRange({ from: '0000-01-01', to: '2026-01-01' }, now))).toBe('from');
    expect(fieldOf(() => parseRange({ from: '9999-12-30', to: '9999-12-31' }, now))).toBe('to');
    expect(fieldOf(() => parseRange({ from: '9998-12-30', to: '9999-01-01' }, now))).toBe('to');
    expect(fieldOf(() => parseRange({ from: '1969-12-31T23:00:00Z', to: '1970-01-02' }, now))).toBe('from');
  });
});
