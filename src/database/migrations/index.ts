/** Every migration, oldest first. `npm run migration:generate` writes new ones beside this file: add them here. */
export const MIGRATIONS: Function[] = [];
