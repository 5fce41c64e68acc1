import { chartColumns, csvName, endOfDayIso, quotaShare, submissionsCsvName, utcDay } from './format';

describe('dashboard format helpers', () => {
  it('endOfDayIso: a date input means the end of that day where the user is', () => {
    const iso = endOfDayIso('2030-03-09');
    const at = new Date(iso);
    expect([at.getFullYear(), at.getMonth() + 1, at.getDate(), at.getHours(), at.getMinutes()]).toEqual([2030, 3, 9, 23, 59]);
  });

  it('quotaShare: part of the limit used; null when unlimited; a zero limit is full', () => {
    expect(quotaShare(3, 4)).toBe(0.75);
    expect(quotaShare(5, 4)).toBe(1.25);
    expect(quotaShare(10, null)).toBeNull();
    expect(quotaShare(0, 0)).toBe(1);
    expect(quotaShare(1, 0)).toBe(Infinity);
  });

  it('chartColumns: x in Unix seconds, errors are 4xx + 5xx, hourly visitors stay null (a gap)', () => {
    const point = (time: string, visitors: number | null) => ({ time, pageViews: 2, visitors, requests: 5, botRequests: 1, status4xx: 1, status5xx: 2 });
    expect(chartColumns([point('2026-11-23T00:00:00.000Z', 1), point('2026-11-23T01:00:00.000Z', null)])).toEqual([
      [Date.UTC(2026, 10, 23) / 1000, Date.UTC(2026, 10, 23, 1) / 1000],
      [2, 2],
      [1, null],
      [5, 5],
      [3, 3],
    ]);
    expect(chartColumns([])).toEqual([[], [], [], [], []]);
  });

  it('utcDay and csvName use the UTC day', () => {
    const lateEvening = new Date(Date.UTC(2026, 0, 31, 23, 30));
    expect(utcDay(lateEvening)).toBe('2026-01-31');
    expect(csvName('my-site', lateEvening)).toBe('leads-my-site-2026-01-31.csv');
    expect(submissionsCsvName('my-site', 'contact', lateEvening)).toBe('form-my-site-contact-2026-01-31.csv');
  });

  it('submissionsCsvName keeps only what a file name allows of a form name', () => {
    const at = new Date(Date.UTC(2026, 0, 31));
    expect(submissionsCsvName('s', '../Contact us!', at)).toBe('form-s-.._Contact_us_-2026-01-31.csv');
    expect(submissionsCsvName('s', '///', at)).toBe('form-s-_-2026-01-31.csv');
    expect(submissionsCsvName('s', '', at)).toBe('form-s-form-2026-01-31.csv');
  });
});
