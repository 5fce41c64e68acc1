import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

import { MAX_PAGE, PageQueryDto, paginated } from './pagination';

describe('paginated', () => {
  it('computes totalPages by rounding up', () => {
    expect(paginated([1, 2], 41, 3, 20).meta).toEqual({ total: 41, page: 3, limit: 20, totalPages: 3 });
  });
  it('gives zero pages for an empty list', () => {
    expect(paginated([], 0, 1, 20)).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
  });
});

describe('PageQueryDto', () => {
  const check = (query: Record<string, string>) => {
    const dto = plainToInstance(PageQueryDto, query);
    return { dto, messages: validateSync(dto).flatMap((e) => Object.values(e.constraints ?? {})) };
  };

  it('defaults to page 1 of 20', () => {
    const { dto, messages } = check({});
    expect(messages).toEqual([]);
    expect([dto.page, dto.limit, dto.offset]).toEqual([1, 20, 0]);
  });

  it.each([
    [{ page: '0' }, ['page must be a positive integer']],
    [{ page: '1.5' }, ['page must be a positive integer']],
    [{ page: 'abc' }, [`page must be at most ${MAX_PAGE}`, 'page must be a positive integer', 'page must be a positive integer']],
    [{ page: String(MAX_PAGE + 1) }, [`page must be at most ${MAX_PAGE}`]],
    [{ limit: '0' }, ['limit must be a positive integer']],
    [{ limit: '101' }, ['limit must be at most 100']],
  ])('%j is refused, each message naming its field', (query, expected) => {
    expect(check(query).messages).toEqual(expected);
  });
});
