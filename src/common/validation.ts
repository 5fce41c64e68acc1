import { ValidationPipe } from '@nestjs/common';
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

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const lines = describeValidationErrors(errors);
      return badRequest(lines.join('; '), 'validation_failed', { errors: lines });
    },
  });
}
