/** Rows of a table in an object's SQLite, read from inside it (`runInDurableObject`): 0 for a table not made yet. */
export function rowCount(storage: DurableObjectStorage, table: string): number {
  const made = storage.sql.exec('SELECT name FROM sqlite_master WHERE name = ?', table).toArray().length > 0;
  return made ? Number(storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n) : 0;
}
