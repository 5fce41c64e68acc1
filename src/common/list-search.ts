import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

import { decoratorStack } from './decorator-stack';
import { trim } from './dto-fields';

/** `%`, `_` and the escape character itself match literally in a LIKE pattern (PostgreSQL's default escape is `\`). */
export function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A list's optional `search` query parameter: trimmed, one value, not empty, at most `max`
 * characters, each refusal a 400 naming the parameter. What it matches is the list's to
 * say in `matches` (the repository matches it with `likeContaining`).
 */
export const SearchParam = (max: number, matches: string, example: string): PropertyDecorator =>
  decoratorStack(
    ApiPropertyOptional({ minLength: 1, maxLength: max, example, description: `${matches} (case-insensitive, trimmed; \`%\` and \`_\` match themselves)` }),
    IsOptional(),
    Transform(trim),
    IsString({ message: 'search must be one text value' }),
    IsNotEmpty({ message: 'search must not be empty (omit it to list everything)' }),
    MaxLength(max, { message: `search must be at most ${max} characters` }),
  );
