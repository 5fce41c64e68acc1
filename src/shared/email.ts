import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, MaxLength } from 'class-validator';

import { decoratorStack } from '../common/decorator-stack';

declare const normalized: unique symbol;
/**
 * An account email in its one stored form (normalizeEmail). Request DTOs produce it
 * (@ToEmail), so services and repositories take this type and never normalise again.
 */
export type Email = string & { readonly [normalized]: true };

/**
 * The one form an email is stored and compared in. Lowercasing the whole address
 * (local part included) is what makes "Ann@x.io" and "ann@x.io" one account; every
 * mail provider people use treats them alike.
 */
export function normalizeEmail(email: string): Email {
  return email.normalize('NFC').toLowerCase() as Email;
}

/**
 * Normalises a DTO's email field as the body is read, so the DTO carries an Email. A
 * non-string is left as sent, for the field's validators to refuse and name.
 */
export function ToEmail(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? normalizeEmail(value) : value));
}

/** The checks of an email address: lowercased and trimmed (ToEmail), at most 254 characters, an address. */
export const EmailChecks = (): PropertyDecorator => decoratorStack(ToEmail(), MaxLength(254), IsEmail({}, { message: '$property must be an email address' }));

/** A required email address. */
export const EmailField = (description?: string): PropertyDecorator =>
  decoratorStack(ApiProperty({ type: String, example: 'ann@example.com', ...(description === undefined ? {} : { description }) }), EmailChecks());
