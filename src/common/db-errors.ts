import { QueryFailedError } from 'typeorm';

/** The name of the unique constraint a statement violated, or undefined for any other error. */
export function uniqueViolation(err: unknown): string | undefined {
  if (!(err instanceof QueryFailedError)) return undefined;
  const driverError = (err as QueryFailedError & { driverError?: { code?: string; constraint?: string } }).driverError;
  return driverError?.code === '23505' ? (driverError.constraint ?? '') : undefined;
}

/** Whether a statement referred to a row that is gone (a foreign key's parent deleted meanwhile). */
export function isForeignKeyViolation(err: unknown): boolean {
  return err instanceof QueryFailedError && (err as QueryFailedError & { driverError?: { code?: string } }).driverError?.code === '23503';
}

/** Network errors of a connection to a server that is gone or not (yet) listening. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** node-postgres's own messages when a connection drops or cannot be made in time. */
const UNREACHABLE_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection closed)/;

/**
 * Whether an error means the database cannot be reached right now (down, restarting,
 * shutting down) rather than that a statement failed: those answer 503, not 500.
 * SQLSTATE class 08 is "connection exception"; 57P01-57P03 are admin/crash shutdown
 * and "cannot connect now" (starting up or in recovery).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const e = err as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown; errors?: unknown };
  // The object store's SDK fails with the same network codes: that is not the database.
  if ('$metadata' in e || '$fault' in e) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNREACHABLE_CODES.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code)) return true;
  if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return isDatabaseUnavailable(e.driverError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
