// db/migrations/<dialect>/ at the package root: two levels above this module in src/store/, dist/store/
// and the bundle (dist/bundle/), so the URL is made here and not in the dialect's own folder.
export const migrationsDir = (dialect: 'sqlite' | 'postgres'): URL =>
  new URL(`../../db/migrations/${dialect}/`, import.meta.url);

/** A file of db/ at the package root (db/grants.sql), found the same way. */
export const dbFile = (name: string): URL => new URL(`../../db/${name}`, import.meta.url);
