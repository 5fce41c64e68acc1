import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

import { decoratorStack } from './decorator-stack';

export interface Paginated<T> {
  data: T[];
  meta: { total: number; page: number; limit: number; totalPages: number };
}

export function paginated<T>(data: T[], total: number, page: number, limit: number): Paginated<T> {
  return { data, meta: { total, page, limit, totalPages: Math.ceil(total / limit) } };
}

/**
 * The largest `page`. `1e308` and `99999999999999999999` are integers to JavaScript, but
 * their OFFSET is no bigint to PostgreSQL (a 500); this keeps (page - 1) * limit far inside
 * bigint and inside JavaScript's exact integers whatever the limit.
 */
export const MAX_PAGE = 2_147_483_647;
export const MAX_LIMIT = 100;

/** An optional query parameter read as a whole number from 1 to `max`; its messages name it. */
const PositiveIntParam = (max: number, fallback: number): PropertyDecorator =>
  decoratorStack(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: max, default: fallback }),
    IsOptional(),
    Type(() => Number),
    IsInt({ message: '$property must be a positive integer' }),
    Min(1, { message: '$property must be a positive integer' }),
    Max(max, { message: `$property must be at most ${max}` }),
  );

/**
 * `page` and `limit` query parameters, the one parser of every list route: positive
 * integers, `page` at most MAX_PAGE, `limit` at most 100. Lists with another default
 * limit extend it and only change the default.
 */
export class PageQueryDto {
  @PositiveIntParam(MAX_PAGE, 1)
  page: number = 1;

  @PositiveIntParam(MAX_LIMIT, 20)
  limit: number = 20;

  get offset(): number {
    return (this.page - 1) * this.limit;
  }
}
