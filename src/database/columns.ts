import { applyDecorators } from '@nestjs/common';
import {
  Column,
  CreateDateColumn,
  Index,
  JoinColumn,
  ManyToOne,
  type ObjectType,
  OneToOne,
  PrimaryColumn,
  UpdateDateColumn,
  type ValueTransformer,
} from 'typeorm';

/**
 * Column decorators every entity shares, so a kind of column is declared once and
 * means the same schema everywhere (the entities-vs-migrations test holds them to it).
 * Every timestamp is a timestamptz with millisecond precision, as JavaScript dates are.
 */

/** `created_at`, filled in by the database on insert. */
export const CreatedAtColumn = (): PropertyDecorator => CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 });

/** `updated_at`, refreshed by TypeORM on every save. */
export const UpdatedAtColumn = (): PropertyDecorator => UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 });

/** A timestamptz column with millisecond precision. */
export const TimestampColumn = (name: string, options: { nullable?: boolean; default?: () => string } = {}): PropertyDecorator =>
  Column({ type: 'timestamptz', name, precision: 3, ...options });

/** PostgreSQL returns bigint as a string; sizes and counts here stay far below 2^53, so they are read as numbers. */
export const BIGINT_NUMBER: ValueTransformer = { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

/** A bigint column read as a JavaScript number. */
export const BigintColumn = (options: { name?: string; nullable?: boolean; default?: number } = {}): PropertyDecorator =>
  Column('bigint', { ...options, transformer: BIGINT_NUMBER });

/** A text column holding another row's id (`workspace_id`, `user_id`…), under the index `index` when given. */
export function ReferenceColumn(name: string, options: { index?: string; nullable?: boolean } = {}): PropertyDecorator {
  const { index, ...column } = options;
  return applyDecorators(...(index ? [Index(index)] : []), Column('text', { name, ...column }));
}

/** `token_hash`: the SHA-256 of a secret handed out once, unique; the secret itself is never stored. */
export const TokenHashColumn = (uniqueIndex: string): PropertyDecorator =>
  applyDecorators(Index(uniqueIndex, { unique: true }), Column('text', { name: 'token_hash' }));

/** The parent row this one belongs to, joined on `column`; deleting the parent deletes this row. */
export const CascadeManyToOne = <T>(parent: () => ObjectType<T>, column: string, foreignKey: string, options: { nullable?: boolean } = {}): PropertyDecorator =>
  applyDecorators(ManyToOne(parent, { onDelete: 'CASCADE', ...options }), JoinColumn({ name: column, foreignKeyConstraintName: foreignKey }));

/** The same for a parent with at most one such row (a workspace's subscription, a project's lead counter). */
export const CascadeOneToOne = <T>(parent: () => ObjectType<T>, column: string, foreignKey: string): PropertyDecorator =>
  applyDecorators(OneToOne(parent, { onDelete: 'CASCADE' }), JoinColumn({ name: column, foreignKeyConstraintName: foreignKey }));

/** The key column and the relation a row keyed by its parent gets: `workspaceId` and `workspace`, `projectId` and `project`. */
export type KeyedBy<Parent extends string, P> = { [K in `${Parent}Id`]: string } & { [K in Parent]?: P };

/**
 * Base class of a row that hangs off a workspace or a project and is keyed by it: the
 * parent's id (`<parent>_id`) leads the primary key `PK_<table>`, and the row goes with
 * its parent (`FK_<table>_<parent>`); the names are the ones the migrations gave. `one`:
 * the parent has at most one such row. The entity declares the rest of its key after it.
 */
export function KeyedRow<Parent extends string, P>(
  table: string,
  parent: Parent,
  entity: () => ObjectType<P>,
  perParent: 'many' | 'one' = 'many',
): abstract new () => KeyedBy<Parent, P> {
  abstract class Row {}
  const column = `${parent}_id`;
  PrimaryColumn('text', { name: column, primaryKeyConstraintName: `PK_${table}` })(Row.prototype, `${parent}Id`);
  const relation = perParent === 'one' ? CascadeOneToOne : CascadeManyToOne;
  relation(entity, column, `FK_${table}_${parent}`)(Row.prototype, parent);
  return Row as abstract new () => KeyedBy<Parent, P>;
}
