import { QueryFailedError } from 'typeorm';

/** The name of the unique constraint a statement violated, or undefined for any other error. */
export function uniqueViolation(err: unknown): string | undefined {
  if (!(err instanceof QueryFailedError)) return undefined;
  const driverError = (err as QueryFailedError & { driverError?: { code?: string; constraint?: string } }).driverError;
  return driverError?.code === '23505' ? (driverError.constraint ?? '') : undefined;
}
