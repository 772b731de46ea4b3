import type { Db } from './connection.js';

/**
 * `instance_settings`: values this installation generates once and keeps
 * (the personal keys' secret, OAuth's signing and cookie keys), by name.
 */
export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('instance_settings')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.value;
}

/** Stores the value unless one exists; returns whichever is stored. */
export async function initSetting(db: Db, name: string, value: string): Promise<string> {
  await db
    .insertInto('instance_settings')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return (await readSetting(db, name))!;
}
