import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

import { decoratorStack } from './decorator-stack';
import { type IdPrefix } from './ids';

/** Surrounding spaces are dropped before a name is checked and stored. */
export const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** The checks of a display name (a person's, a workspace's, a token's): trimmed, not empty, at most 100 characters. */
export const NameChecks = (): PropertyDecorator =>
  decoratorStack(Transform(trim), IsString(), IsNotEmpty({ message: '$property must not be empty' }), MaxLength(100));

/** A required display name. */
export const NameField = (example: string): PropertyDecorator => decoratorStack(ApiProperty({ example, maxLength: 100 }), NameChecks());

/** Long enough for any passphrase, short enough that hashing it costs nothing extra. */
export const MAX_PASSWORD = 256;

/** A new password: 8 to MAX_PASSWORD characters. */
export const NewPasswordField = (doc: { example: string } | { description: string }): PropertyDecorator =>
  decoratorStack(
    ApiProperty({ minLength: 8, maxLength: MAX_PASSWORD, ...doc }),
    IsString(),
    MinLength(8, { message: '$property must be at least 8 characters' }),
    MaxLength(MAX_PASSWORD),
  );

/** An id of the `prefix` kind, documented by an example of its form (`ws_` and 24 characters). */
export const IdProperty = (prefix: IdPrefix): PropertyDecorator => ApiProperty({ example: `${prefix}_0123456789abcdefghijklmn` });

/** An optional string. */
export const OptionalStringField = (doc: ApiPropertyOptions): PropertyDecorator => decoratorStack(ApiPropertyOptional(doc), IsOptional(), IsString());

/** An optional choice among `values`. */
export const OptionalChoiceField = (values: readonly string[], doc: ApiPropertyOptions): PropertyDecorator =>
  decoratorStack(ApiPropertyOptional({ enum: values, ...doc }), IsOptional(), IsIn(values));

/** A string or null: `string | null` reflects as Object, so the type is spelled out for the OpenAPI document. */
export const NullableStringProperty = (doc: { example?: string; description?: string } = {}): PropertyDecorator =>
  ApiProperty({ type: String, nullable: true, ...doc });
