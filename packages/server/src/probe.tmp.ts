import { sql } from 'kysely';
import { createTestApp, signUp, accountIdOf } from './test/harness.js';
const t = await createTestApp();
const { user } = await signUp(t.app);
const accountId = await accountIdOf(t, user.id);
const { id: spaceId } = await t.database.db.selectFrom('spaces').select('id').where('account_id', '=', accountId).executeTakeFirstOrThrow();
const db = t.database.db;
// capture the compiled append
const { sendAppend } = await import('./features/graph/changes.repository.js');
let compiled: { sql: string; parameters: readonly unknown[] } | undefined;
const fakeTrx = new Proxy(db, { get(target, prop) {
  if (prop === 'getExecutor') return () => ({ ...target.getExecutor(), provideConnection: async (fn: any) => fn({ executeQuery: (c: any) => { compiled = c; return Promise.resolve({ rows: [{ first: '1', count: 0, at: new Date(), events: null }] }); } }), compileQuery: (n: any, q: any) => target.getExecutor().compileQuery(n, q), transformQuery: (n: any, q: any) => target.getExecutor().transformQuery(n, q), adapter: target.getExecutor().adapter });
  return (target as any)[prop]; } });
await sendAppend(fakeTrx as any, accountId, spaceId, [{ staged: 0 }], { actor: { kind: 'key' }, at: new Date() }, { maxEntities: 1000, maxStorageBytes: 1e9, maxObservationsPerEntity: 1000, largestObservations: 0 });
const text = compiled!.sql.replace(/^\s*\/\*[^*]*\*\/\s*\/\*[^*]*\*\//, '');
const params = compiled!.parameters;
console.log('params', params.length);
await db.transaction().execute(async (trx) => {
  await sql`select set_config('engram.space_live','true',true), set_config('engram.bytes_before','0',true)`.execute(trx);
  await sql.raw(`prepare ap as ${text}`).execute(trx);
  const lit = params.map((p) => p === null ? 'null' : typeof p === 'number' ? String(p) : `'${String(p instanceof Date ? p.toISOString() : p).replace(/'/g, "''")}'`).join(',');
  for (const mode of ['force_custom_plan', 'force_generic_plan']) {
    await sql.raw(`set local plan_cache_mode = ${mode}`).execute(trx);
    const r = await sql.raw(`explain execute ap(${lit})`).execute(trx);
    console.log(mode, (r.rows as any[]).slice(0, 3).map((x) => x['QUERY PLAN']).join('\n'));
  }
  throw new Error('rollback');
}).catch((e) => console.log(String(e).slice(0, 300)));
await t.close();
