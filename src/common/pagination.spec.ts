import { paginated } from './pagination';

describe('paginated', () => {
  it('computes totalPages by rounding up', () => {
    expect(paginated([1, 2], 41, 3, 20).meta).toEqual({ total: 41, page: 3, limit: 20, totalPages: 3 });
  });
  it('gives zero pages for an empty list', () => {
    expect(paginated([], 0, 1, 20)).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
  });
});
