/**
 * Every TypeORM entity, listed by hand so the app, the migration CLI and the tests
 * load the same set without globbing compiled files.
 */
export const ENTITIES: Function[] = [];
