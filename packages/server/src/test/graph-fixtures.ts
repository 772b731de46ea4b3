import type { CreatedEntity, Entity, Relation } from '@engram/shared';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { as, signUp } from './harness.js';

export type Requester = (options: InjectOptions) => Promise<LightMyRequestResponse>;

export interface Account {
  token: string;
  userId: string;
  email: string;
  req: Requester;
}

/** A fresh user (and so a fresh account) with an authed requester. */
export async function newAccount(app: FastifyInstance): Promise<Account> {
  const { token, user } = await signUp(app);
  return { token, userId: user.id, email: user.email, req: as(app, token) };
}

export async function createEntity(
  req: Requester,
  input: {
    name: string;
    type?: string;
    metadata?: Record<string, unknown>;
    observations?: (string | { content: string; metadata?: Record<string, unknown> })[];
  },
): Promise<Entity> {
  const response = await req({
    method: 'POST',
    url: '/api/entities',
    payload: { type: 'concept', ...input },
  });
  expect(response.statusCode, response.body).toBe(201);
  // The entity as every read answers it: a create's answer adds its possible duplicates.
  const { possibleDuplicates: _, ...entity } = response.json<CreatedEntity>();
  return entity;
}

export async function createRelation(
  req: Requester,
  from: { id: string },
  to: { id: string },
  type = 'relates_to',
): Promise<Relation> {
  const response = await req({
    method: 'POST',
    url: '/api/relations',
    payload: { fromEntityId: from.id, toEntityId: to.id, type },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Relation>();
}

export async function getJson<T>(req: Requester, url: string): Promise<T> {
  const response = await req({ method: 'GET', url });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
}
