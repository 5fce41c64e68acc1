import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

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

/**
 * `page` and `limit` query parameters, the one parser of every list route: positive
 * integers, `page` at most MAX_PAGE, `limit` at most 100. Lists with another default
 * limit extend it and only change the default.
 */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'page must be a positive integer' })
  @Min(1, { message: 'page must be a positive integer' })
  @Max(MAX_PAGE, { message: `page must be at most ${MAX_PAGE}` })
  page: number = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a positive integer' })
  @Min(1, { message: 'limit must be a positive integer' })
  @Max(MAX_LIMIT, { message: `limit must be at most ${MAX_LIMIT}` })
  limit: number = 20;

  get offset(): number {
    return (this.page - 1) * this.limit;
  }
}
