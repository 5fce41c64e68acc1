import { applyDecorators, type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { NotEquals, ValidateIf, type ValidationError } from 'class-validator';
import { LRUCache } from 'lru-cache';

import { badRequest } from './errors';

/** Flattens nested class-validator errors into `files.0.path: must be a string` lines. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      // class-validator phrases messages as "<property> must ..."; say where instead.
      const text = message.startsWith(`${error.property} `) ? message.slice(error.property.length + 1) : message;
      lines.push(`${path}: ${text}`);
    }
    if (error.children?.length) lines.push(...describeValidationErrors(error.children, path));
  }
  return lines;
}

/** How many problems an error names; a body with thousands of unknown fields must not get a megabyte-long answer. */
export const MAX_NAMED_PROBLEMS = 10;

/** The first MAX_NAMED_PROBLEMS lines, then how many more there were. */
export function summarizeProblems(lines: string[]): { message: string; shown: string[] } {
  const shown = lines.slice(0, MAX_NAMED_PROBLEMS);
  const more = lines.length - shown.length;
  return { message: shown.join('; ') + (more > 0 ? `; and ${more} more` : ''), shown };
}

/**
 * A field that may be left out but not sent as null: `@IsOptional` lets null through
 * to the service as if it were a value. For PATCH fields that null cannot clear.
 */
export function OptionalNotNull(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    NotEquals(null, { message: '$property must not be null (leave it out to keep the current value)' }),
  );
}

/** Longest query string (as JSON) whose validated DTO is kept: a page, a limit, a search term fit. */
const MAX_MEMO_KEY = 512;
/** Distinct valid queries kept per DTO class. */
const MAX_MEMO_ENTRIES = 1_000;

type Dto = new (...args: never[]) => object;

/**
 * The one global pipe: refuses malformed text (NUL, lone surrogates) in any parameter,
 * query value or body field, naming where, before class-validator's validators (which
 * may throw on it) see it; then validates DTOs, remembering valid query strings.
 *
 * Why remember: a list route is called again and again with the same few queries (none,
 * `?page=2`...), and validating one cost class-transformer and class-validator about
 * 9 µs and 8 KB of garbage per request. A query DTO's validation is a pure function of
 * the query (strings in; built-in validators, no clock, no database), so a query seen
 * valid once is valid again: the DTO it gave is kept, and every later request gets its
 * own copy of it. Only flat DTOs (primitive fields) are kept, so no two requests share
 * a mutable value; refusals are not kept (they are rare, and their errors are built fresh).
 *
 * One pipe rather than two: Nest runs each global pipe on each argument of each request
 * through its own promise.
 */
export class MemoValidationPipe extends ValidationPipe {
  private readonly valid = new WeakMap<Dto, LRUCache<string, object>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Our own decorators' values (the principal) are built by the guard, not sent: nothing to check.
    if (metadata.type === 'custom') return value;
    const metatype = metadata.metatype as Dto | undefined;
    const key = metadata.type === 'query' && metatype ? memoKey(value) : undefined;
    const known = key === undefined ? undefined : this.valid.get(metatype!)?.get(key);
    // A query seen valid was seen clean: the check is as pure as the validation.
    if (known) return Object.assign(Object.create(metatype!.prototype) as object, known);
    assertStorableText(value, metadata.type === 'param' ? (metadata.data ?? '') : '');
    const dto: unknown = await super.transform(value, metadata);
    if (key !== undefined && dto instanceof metatype! && isFlat(dto)) {
      let byQuery = this.valid.get(metatype!);
      if (!byQuery) this.valid.set(metatype!, (byQuery = new LRUCache({ max: MAX_MEMO_ENTRIES })));
      byQuery.set(key, { ...dto });
    }
    return dto;
  }
}

/** A key for a parsed query string of plain string values, or undefined (anything else is validated every time). */
function memoKey(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  for (const field in value) if (typeof (value as Record<string, unknown>)[field] !== 'string') return undefined;
  const key = JSON.stringify(value);
  return key.length <= MAX_MEMO_KEY ? key : undefined;
}

function isFlat(dto: object): boolean {
  return Object.values(dto).every((field) => field === null || (typeof field !== 'object' && typeof field !== 'function'));
}

export function createValidationPipe(): ValidationPipe {
  return new MemoValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const { message, shown } = summarizeProblems(describeValidationErrors(errors));
      return badRequest(message, 'validation_failed', { errors: shown });
    },
  });
}

/** PostgreSQL text cannot store NUL: such a string would fail deep in a query (a 500). */
const hasNul = (s: string) => s.includes('\u0000');
/**
 * A lone UTF-16 surrogate (JSON can carry one as `"\ud800"`) is no Unicode text: it
 * cannot be encoded as UTF-8, and validator.js's `isEmail` throws a URIError on it.
 */
const hasLoneSurrogate = (s: string) => /\p{Cs}/u.test(s);

/**
 * Where in a request value a string fails `bad`, or undefined. Deploy file `content`
 * is skipped: it is bytes bound for the object store, never a database column.
 */
function findString(value: unknown, bad: (s: string) => boolean, path: string): string | undefined {
  if (typeof value === 'string') return bad(value) ? path || 'value' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findString(value[i], bad, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'content' && /^files\[\d+\]$/.test(path)) continue;
      const found = findString(child, bad, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

export const findNul = (value: unknown, path = ''): string | undefined => findString(value, hasNul, path);
export const findLoneSurrogate = (value: unknown, path = ''): string | undefined => findString(value, hasLoneSurrogate, path);

/** Throws the 400 naming the first string in `value` that no text column or validator can take. */
export function assertStorableText(value: unknown, path = ''): void {
  const nul = findNul(value, path);
  if (nul) throw badRequest(`${nul}: must not contain a NUL character`, 'validation_failed');
  const surrogate = findLoneSurrogate(value, path);
  if (surrogate) throw badRequest(`${surrogate}: must be valid Unicode text (it holds a lone surrogate)`, 'validation_failed');
}
