/**
 * Names for the shapes the grouped methods take and answer, each read from the
 * generated `paths` (the server's OpenAPI document): none is written by hand,
 * so they follow the server at every build.
 */
import type { paths } from './generated/openapi.js';

export type { paths, components, operations } from './generated/openapi.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Path = keyof paths;
type Operation<P extends Path, M extends Method> = NonNullable<paths[P][M]>;

/** The query parameters of a route. */
export type QueryOf<P extends Path, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The JSON body a route takes. */
export type BodyOf<P extends Path, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : never;

type SuccessJson<R> = {
  [S in keyof R]: S extends 200 | 201 ? R[S] : never;
}[keyof R] extends infer A
  ? A extends { content: { 'application/json': infer J } }
    ? J
    : undefined
  : never;

/** The JSON a route answers with on success (200 or 201). */
export type AnswerOf<P extends Path, M extends Method> =
  Operation<P, M> extends { responses: infer R } ? SuccessJson<R> : never;

type ItemOf<T> = T extends readonly (infer I)[] ? I : never;

export type Entity = AnswerOf<'/api/entities/{id}', 'get'>;
export type EntityCreated = AnswerOf<'/api/entities', 'post'>;
export type EntityInput = BodyOf<'/api/entities', 'post'>;
export type EntityUpdate = BodyOf<'/api/entities/{id}', 'put'>;
export type EntityPage = AnswerOf<'/api/entities', 'get'>;
export type EntityListItem = ItemOf<EntityPage['entities']>;
export type ObservationInput = ItemOf<
  BodyOf<'/api/entities/{id}/observations', 'post'>['observations']
>;
export type ObservationsAdded = AnswerOf<'/api/entities/{id}/observations', 'post'>;
export type Deleted = AnswerOf<'/api/entities/{id}', 'delete'>;
export type EntityAuthors = AnswerOf<'/api/entities/{id}/authors', 'get'>;
export type TypeCount = ItemOf<AnswerOf<'/api/entities/types', 'get'>['types']>;

export type Relation = AnswerOf<'/api/relations', 'post'>;
export type RelationInput = BodyOf<'/api/relations', 'post'>;
export type RelationUpdate = BodyOf<'/api/relations/{id}', 'put'>;
export type RelationDeleted = AnswerOf<'/api/relations/{id}', 'delete'>;
export type RelationListItem = ItemOf<AnswerOf<'/api/relations', 'get'>['relations']>;
export type Subgraph = AnswerOf<'/api/relations/graph/{id}', 'get'>;

export type Change = ItemOf<AnswerOf<'/api/changes', 'get'>['changes']>;
export type Reverted = AnswerOf<'/api/changes/{seq}/revert', 'post'>;

export type RecallAnswer = AnswerOf<'/api/recall', 'get'>;
export type RecallResult = ItemOf<RecallAnswer['results']>;
export type ContextAnswer = AnswerOf<'/api/context', 'get'>;

export type DuplicateCandidate = ItemOf<AnswerOf<'/api/duplicates', 'get'>['candidates']>;
export type MergeInput = BodyOf<'/api/entities/merge', 'post'>;
export type Merged = AnswerOf<'/api/entities/merge', 'post'>;

export type Space = AnswerOf<'/api/spaces/{space}', 'get'>;
export type SpaceInput = BodyOf<'/api/spaces', 'post'>;

export type ApiKey = ItemOf<AnswerOf<'/api/keys', 'get'>['apiKeys']>;
export type ApiKeyInput = BodyOf<'/api/keys', 'post'>;
export type ApiKeyCreated = AnswerOf<'/api/keys', 'post'>;
export type ApiKeyRolled = AnswerOf<'/api/keys/{id}/roll', 'post'>;

export type Webhook = AnswerOf<'/api/webhooks/{id}', 'get'>;
export type WebhookInput = BodyOf<'/api/webhooks', 'post'>;
export type WebhookCreated = AnswerOf<'/api/webhooks', 'post'>;
export type WebhookUpdate = BodyOf<'/api/webhooks/{id}', 'patch'>;
export type WebhookDelivery = AnswerOf<'/api/webhooks/{id}/test', 'post'>;
export type WebhookSecret = AnswerOf<'/api/webhooks/{id}/rotate-secret', 'post'>;

/**
 * `GET /api/export`'s document (the server streams it, so the OpenAPI
 * document does not describe it): Engram's lossless JSON, which `engram
 * import` reads back.
 */
export interface ExportDocument {
  format: 'engram';
  version: 1;
  exportedAt: string;
  entities: {
    id: string;
    name: string;
    type: string;
    metadata: Record<string, unknown>;
    aliases?: string[];
    createdAt: string;
    updatedAt: string;
    observations: {
      id: string;
      content: string;
      metadata?: Record<string, unknown>;
      createdAt: string;
    }[];
  }[];
  relations: {
    id: string;
    fromEntityId: string;
    toEntityId: string;
    type: string;
    createdAt: string;
  }[];
}

/** The answers of the paged lists, as `Paginated.pages()` yields them. */
export type RelationPage = AnswerOf<'/api/relations', 'get'>;
export type TypePage = AnswerOf<'/api/entities/types', 'get'>;
export type ChangePage = AnswerOf<'/api/changes', 'get'>;
export type SpacePage = AnswerOf<'/api/spaces', 'get'>;
export type ApiKeyPage = AnswerOf<'/api/keys', 'get'>;
export type WebhookPage = AnswerOf<'/api/webhooks', 'get'>;
export type DeliveryPage = AnswerOf<'/api/webhooks/{id}/deliveries', 'get'>;
export type DuplicatePage = AnswerOf<'/api/duplicates', 'get'>;
