const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are uuids in the database; anything else names no row (a 404, never a cast error). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
