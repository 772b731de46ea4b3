import { unwrap, type Api } from './core.js';
import { commaList, Paginated, tokenQuery } from './pages.js';
import type {
  Change,
  ChangePage,
  Deleted,
  Entity,
  EntityAuthors,
  EntityCreated,
  EntityInput,
  EntityListItem,
  EntityPage,
  EntityUpdate,
  ObservationInput,
  ObservationsAdded,
  QueryOf,
  Relation,
  RelationInput,
  RelationDeleted,
  RelationListItem,
  RelationPage,
  RelationUpdate,
  Reverted,
  Subgraph,
  TypeCount,
  TypePage,
} from './types.js';

type Types = string | readonly string[];

export interface EntityListOptions {
  /** Substring of a name, type or observation (ranked); without it, newest first. */
  query?: string;
  /** Entity types, as an array or comma separated. */
  types?: Types;
  /** Entities per page (the server's default 100, at most 1000). */
  limit?: number;
  /** Read the graph as it was: an ISO time or `seq:N`. */
  asOf?: string;
}

export interface TypeListOptions {
  prefix?: string;
  limit?: number;
}

/** `client.entities`: the space's entities and their observations. */
export class Entities {
  constructor(private readonly api: Api) {}

  create(entity: EntityInput): Promise<EntityCreated> {
    return unwrap(this.api.POST('/api/entities', { body: entity }));
  }

  get(id: string, options: { asOf?: string } = {}): Promise<Entity> {
    return unwrap(this.api.GET('/api/entities/{id}', { params: { path: { id }, query: options } }));
  }

  /** Every entity that matches, a page at a time (`nextCursor`). */
  list(options: EntityListOptions = {}): Paginated<EntityListItem, EntityPage> {
    const { types, ...rest } = options;
    return new Paginated(
      (token) =>
        unwrap(
          this.api.GET('/api/entities', {
            params: { query: { ...rest, types: commaList(types), ...tokenQuery(token) } },
          }),
        ),
      (page) => page.entities,
    );
  }

  /** Replaces name, type and metadata (and aliases or observations when given). */
  update(id: string, entity: EntityUpdate): Promise<Entity> {
    return unwrap(this.api.PUT('/api/entities/{id}', { params: { path: { id } }, body: entity }));
  }

  /** Deletes the entity and its relations; `callSeq` undoes it (`changes.revert`). `purge` erases its history too. */
  delete(id: string, options: { purge?: boolean } = {}): Promise<Deleted> {
    return unwrap(
      this.api.DELETE('/api/entities/{id}', {
        params: { path: { id }, query: options.purge ? { purge: 'true' } : {} },
      }),
    );
  }

  addObservations(id: string, observations: ObservationInput[]): Promise<ObservationsAdded> {
    return unwrap(
      this.api.POST('/api/entities/{id}/observations', {
        params: { path: { id } },
        body: { observations },
      }),
    );
  }

  /** Who created the entity and who last changed it. */
  authors(id: string): Promise<EntityAuthors> {
    return unwrap(this.api.GET('/api/entities/{id}/authors', { params: { path: { id } } }));
  }

  /** The entity types in use, most common first. */
  types(options: TypeListOptions = {}): Paginated<TypeCount, TypePage> {
    return new Paginated(
      (token) =>
        unwrap(
          this.api.GET('/api/entities/types', {
            params: { query: { ...options, ...tokenQuery(token) } },
          }),
        ),
      (page) => page.types,
    );
  }
}

export interface RelationListOptions {
  query?: string;
  /** Relation types, as an array or comma separated. */
  relationTypes?: Types;
  /** Only the relations of this entity. */
  entityId?: string;
  limit?: number;
  asOf?: string;
}

/** `client.relations`: typed links between entities. */
export class Relations {
  constructor(private readonly api: Api) {}

  create(relation: RelationInput): Promise<Relation> {
    return unwrap(this.api.POST('/api/relations', { body: relation }));
  }

  /** Every relation that matches, a page at a time (`nextOffset`). */
  list(options: RelationListOptions = {}): Paginated<RelationListItem, RelationPage> {
    const { relationTypes, ...rest } = options;
    return new Paginated(
      (token) =>
        unwrap(
          this.api.GET('/api/relations', {
            params: {
              query: { ...rest, relationTypes: commaList(relationTypes), ...tokenQuery(token) },
            },
          }),
        ),
      (page) => page.relations,
    );
  }

  update(id: string, relation: RelationUpdate): Promise<Relation> {
    return unwrap(
      this.api.PUT('/api/relations/{id}', { params: { path: { id } }, body: relation }),
    );
  }

  delete(id: string): Promise<RelationDeleted> {
    return unwrap(this.api.DELETE('/api/relations/{id}', { params: { path: { id } } }));
  }

  types(options: TypeListOptions = {}): Paginated<TypeCount, TypePage> {
    return new Paginated(
      (token) =>
        unwrap(
          this.api.GET('/api/relations/types', {
            params: { query: { ...options, ...tokenQuery(token) } },
          }),
        ),
      (page) => page.types,
    );
  }

  /** The entities within `depth` relations of one, with the relations among them. */
  neighbors(id: string, options: { depth?: number; asOf?: string } = {}): Promise<Subgraph> {
    return unwrap(
      this.api.GET('/api/relations/graph/{id}', { params: { path: { id }, query: options } }),
    );
  }

  /** A bounded view of the graph (the Graph screen's), optionally around `rootEntityId`. */
  graph(options: QueryOf<'/api/relations/graph/data', 'get'> = {}): Promise<Subgraph> {
    return unwrap(this.api.GET('/api/relations/graph/data', { params: { query: options } }));
  }
}

export interface ChangeListOptions {
  /** Changes after this (excluded): an ISO time or `seq:N`. */
  since?: string;
  /** Changes up to this (included). */
  until?: string;
  limit?: number;
}

/** `client.changes`: the space's change log, and undo. */
export class Changes {
  constructor(private readonly api: Api) {}

  /** The space's changes, newest first. */
  list(options: ChangeListOptions = {}): Paginated<Change, ChangePage> {
    return new Paginated(
      (token) =>
        unwrap(
          this.api.GET('/api/changes', {
            params: { query: { ...options, ...tokenQuery(token) } },
          }),
        ),
      (page) => page.changes,
    );
  }

  /** Undoes the whole call that made change `seq` (409 naming what changed since). */
  revert(seq: number): Promise<Reverted> {
    return unwrap(this.api.POST('/api/changes/{seq}/revert', { params: { path: { seq } } }));
  }
}

/** One entity's changes, newest first (`client.history(id)`). */
export function entityHistory(
  api: Api,
  id: string,
  options: { limit?: number } = {},
): Paginated<Change, ChangePage> {
  return new Paginated(
    (token) =>
      unwrap(
        api.GET('/api/entities/{id}/history', {
          params: { path: { id }, query: { ...options, ...tokenQuery(token) } },
        }),
      ),
    (page) => page.changes,
  );
}
