import { applyDecorators } from '@nestjs/common';
import { Column, Index } from 'typeorm';

/**
 * Keyed, truncated trigram tokens (lead-crypto.ts): an integer array under a GIN index,
 * so that a search's `@>` reads the index instead of every row of the workspace.
 */
export const TokensColumn = (name: string, ginIndex: string, options: { nullable?: boolean } = {}): PropertyDecorator =>
  applyDecorators(Index(ginIndex, { type: 'gin' }), Column('integer', { name, array: true, ...options }));
