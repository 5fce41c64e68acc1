/** A list endpoint's answer as the e2e suites read it: the rows and the page envelope (common/pagination.ts). */
export interface ListPage<T> {
  data: T[];
  meta: { total: number; page: number; limit: number; totalPages: number };
}
