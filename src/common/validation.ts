import { ArgumentMetadata, PipeTransform, ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
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

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
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

/**
 * Where in a request value a string holds a NUL character, or undefined. PostgreSQL
 * text cannot store NUL, so any such string would fail deep in a query (a 500);
 * deploy file `content` is skipped: it is bytes bound for the object store.
 */
export function findNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'value' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'content' && /^files\[\d+\]$/.test(path)) continue;
      const found = findNul(child, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

/** Refuses NUL characters in any parameter, query value or body field, naming where. */
export class RejectNulPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'custom') return value;
    const found = findNul(value, metadata.type === 'param' ? (metadata.data ?? '') : '');
    if (found) throw badRequest(`${found}: must not contain a NUL character`, 'validation_failed');
    return value;
  }
}
