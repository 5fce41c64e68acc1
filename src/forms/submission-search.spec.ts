import { searchText } from './submission-crypto';
import { matchesSearch, splitColumns } from './submission-search';

describe('submission search', () => {
  it('finds a term inside any value, case-insensitively, every character literal', () => {
    const fields = { name: 'Ann Example', message: 'Price: 100% (net)' };
    expect(matchesSearch(fields, searchText('ANN EX'))).toBe(true);
    expect(matchesSearch(fields, searchText('100%'))).toBe(true);
    expect(matchesSearch(fields, searchText('1_0'))).toBe(false);
    // Field names are not values.
    expect(matchesSearch(fields, searchText('message'))).toBe(false);
  });
});

describe('CSV columns of a submission', () => {
  it('puts declared fields in their columns and the rest as JSON in the last', () => {
    expect(splitColumns(['email', 'message'], { message: 'hi', email: 'a@b.c' })).toEqual({ known: ['a@b.c', 'hi'], other: '' });
    expect(splitColumns(['email', 'message'], { email: 'a@b.c', phone: '123' })).toEqual({ known: ['a@b.c', ''], other: '{"phone":"123"}' });
  });

  it('does not take inherited names for fields', () => {
    expect(splitColumns(['constructor'], {})).toEqual({ known: [''], other: '' });
  });
});
