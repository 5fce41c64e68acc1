import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * Turns rows of a hand-written query (`SELECT t.*` …, named by database column) into
 * entities the way TypeORM's own reads do: each column through the driver's hydration
 * and the column's transformer. For queries TypeORM's query builder cannot send as
 * prepared statements (database/prepared-query.ts); the entity metadata stays the one
 * description of the columns.
 */
export function hydrator<T extends ObjectLiteral>(dataSource: DataSource, target: EntityTarget<T>): (row: Record<string, unknown>) => T {
  const metadata = dataSource.getMetadata(target);
  const columns = metadata.columns.filter((c) => !c.embeddedMetadata);
  return (row) => {
    const entity = metadata.create() as T;
    for (const column of columns) {
      if (!(column.databaseName in row)) continue;
      (entity as Record<string, unknown>)[column.propertyName] = dataSource.driver.prepareHydratedValue(row[column.databaseName], column);
    }
    return entity;
  };
}

/** A hydrator built on first use (entity metadata exists once the data source is initialised). */
export function lazyHydrator<T extends ObjectLiteral>(dataSource: () => DataSource, target: EntityTarget<T>): (row: Record<string, unknown>) => T {
  let hydrate: ((row: Record<string, unknown>) => T) | undefined;
  return (row) => (hydrate ??= hydrator(dataSource(), target))(row);
}
