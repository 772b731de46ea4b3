import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../../db/connection.js';
import * as repo from './oauth.repository.js';

/**
 * The authorization server's storage over the database: every record the
 * library keeps (clients registered dynamically, authorization requests,
 * codes, tokens, grants, its sessions) is a row of `oauth_models`, so a token
 * issued on one node is found on any other and nothing lives only in memory.
 * Expiry is the library's own clock (it computes `expiresIn` from it).
 */
export class DatabaseAdapter implements Adapter {
  constructor(
    private readonly db: Db,
    private readonly kind: string,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    await repo.upsertModel(this.db, {
      kind: this.kind,
      id,
      payload: payload as Record<string, unknown>,
      grantId: payload.grantId ?? null,
      uid: payload.uid ?? null,
      expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
    });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return payloadOf(await repo.findModel(this.db, this.kind, id, new Date()));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return payloadOf(await repo.findModel(this.db, this.kind, uid, new Date(), 'uid'));
  }

  /** Device codes are not offered: nothing is ever found by a user code. */
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(id: string): Promise<void> {
    await repo.consumeModel(this.db, this.kind, id, new Date());
  }

  async destroy(id: string): Promise<void> {
    // A grant that ends takes its owner row (Settings' list) and what it issued with it.
    if (this.kind === 'Grant') await repo.deleteGrant(this.db, id);
    else await repo.destroyModel(this.db, this.kind, id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await repo.revokeModelsOfGrant(this.db, this.kind, grantId);
  }
}

function payloadOf(record: repo.ModelRecord | undefined): AdapterPayload | undefined {
  if (!record) return undefined;
  const payload = record.payload as AdapterPayload;
  return record.consumedAt ? { ...payload, consumed: true } : payload;
}
