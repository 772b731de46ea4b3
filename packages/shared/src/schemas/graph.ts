import { z } from 'zod';
import { commaList, hasNoNul, idString, isStorableTime, pagination, text } from './common.js';

export const ENTITY_NAME_MAX = 500;
export const TYPE_MAX = 100;
export const OBSERVATION_MAX = 10_000;
export const OBSERVATIONS_PER_REQUEST_MAX = 1_000;
export const METADATA_MAX_BYTES = 64 * 1024;

export const METADATA_MAX_DEPTH = 32;
/** Other names an entity goes by (a merge's sources' names, or given): at most this many, each at most ALIAS_MAX characters. */
export const ALIASES_MAX = 20;
export const ALIAS_MAX = 200;

/** True when every key and string in `value` is storable and it nests at most `depth` levels. */
function storableJson(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return hasNoNul(value);
  if (value === null || typeof value !== 'object') return true;
  if (depth === 0) return false;
  return Object.entries(value).every(
    ([key, item]) => hasNoNul(key) && storableJson(item, depth - 1),
  );
}

export const metadataObject = z
  .record(z.string(), z.unknown(), 'metadata must be a JSON object')
  .refine((value) => storableJson(value, METADATA_MAX_DEPTH), {
    message: `metadata must nest at most ${METADATA_MAX_DEPTH} levels and contain no NUL characters`,
    // Measuring a value nested thousands deep would overflow the stack: stop here.
    abort: true,
  })
  .refine((value) => JSON.stringify(value).length <= METADATA_MAX_BYTES, {
    message: `metadata must be at most ${METADATA_MAX_BYTES / 1024} KB of JSON`,
  });

export const entityName = text('Name is required')
  .trim()
  .min(1, 'Name is required')
  .max(ENTITY_NAME_MAX, `Name must be at most ${ENTITY_NAME_MAX} characters`);

export const typeName = (label: string) =>
  text(`${label} is required`)
    .trim()
    .min(1, `${label} is required`)
    .max(TYPE_MAX, `${label} must be at most ${TYPE_MAX} characters`);

/**
 * An entity's aliases: each trimmed, blank ones and repeats dropped. Every
 * by-name door resolves an alias to its entity; an alias may not be another
 * entity's name or alias (409).
 */
export const aliasList = z
  .array(
    text('An alias must be text')
      .trim()
      .max(ALIAS_MAX, `An alias must be at most ${ALIAS_MAX} characters`),
    { error: 'aliases must be a list of names' },
  )
  .transform((aliases) => [...new Set(aliases.filter((alias) => alias.length > 0))])
  .refine((aliases) => aliases.length <= ALIASES_MAX, {
    message: `An entity has at most ${ALIASES_MAX} aliases`,
  });

/** A time a file gives (an import's `createdAt`): ISO 8601 with its zone, from year 1 to 9999. */
export const storedTime = z.iso
  .datetime({ offset: true })
  .refine((value) => isStorableTime(new Date(value)), 'must be a time from year 1 to 9999');

/** An ISO 8601 time (a date alone, or a date and time with its zone). */
const isoTime = (field: string) =>
  z
    .string()
    .max(40)
    .refine(
      (value) =>
        /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value) &&
        isStorableTime(new Date(value)),
      { message: `${field} must be an ISO 8601 date or time (2024-01-31 or 2024-01-31T09:00:00Z)` },
    );

/**
 * When a fact held in the world, as its writer says (docs/history.md): both
 * optional, `validFrom` not after `validTo`. History records when Engram
 * learned it; this is the writer's word.
 */
export const validity = {
  validFrom: isoTime('validFrom').optional(),
  validTo: isoTime('validTo').optional(),
};
export const validFromNotAfterTo = (value: {
  validFrom?: string | undefined;
  validTo?: string | undefined;
}) => !value.validFrom || !value.validTo || new Date(value.validFrom) <= new Date(value.validTo);
export const validOrder = { message: 'validFrom must not be after validTo', path: ['validTo'] };

/** An observation's text: the one limit every door (REST, MCP, imports) applies. */
export const observationText = text().max(
  OBSERVATION_MAX,
  `An observation must be at most ${OBSERVATION_MAX} characters`,
);

/** An observation given as its text, or as text with metadata and when it held. */
export const observationInput = z.union([
  observationText,
  z
    .object({
      content: observationText,
      metadata: metadataObject.optional(),
      ...validity,
    })
    .refine(validFromNotAfterTo, validOrder),
]);
export type ObservationInput = z.infer<typeof observationInput>;

const observationList = z
  .array(observationInput)
  .max(
    OBSERVATIONS_PER_REQUEST_MAX,
    `At most ${OBSERVATIONS_PER_REQUEST_MAX} observations per request`,
  );

/** POST /api/entities and PUT /api/entities/{id}. Blank observations are dropped. */
export const entityInput = z.object({
  name: entityName,
  type: typeName('Type'),
  metadata: metadataObject.default({}),
  observations: observationList.default([]),
});
export type EntityInput = z.input<typeof entityInput>;
export type EntityInputParsed = z.output<typeof entityInput>;

/**
 * PUT /api/entities/{id}: name and type are replaced; metadata and observations
 * only when given. A given observation list becomes the entity's list: unchanged
 * observations keep their ids and dates, missing ones are removed.
 */
export const entityUpdateInput = z.object({
  name: entityName,
  type: typeName('Type'),
  metadata: metadataObject.optional(),
  /** Replaces the entity's aliases when given. */
  aliases: aliasList.optional(),
  observations: observationList.optional(),
});
export type EntityUpdateInput = z.input<typeof entityUpdateInput>;
export type EntityUpdateInputParsed = z.output<typeof entityUpdateInput>;

/** POST /api/entities/{id}/observations: `{ observations: ["text" | {content, metadata}] }`. */
export const addObservationsInput = z.object({
  /** Blank texts are dropped; texts the entity already has are skipped. */
  observations: observationList.min(1, 'Give at least one observation'),
});
export type AddObservationsInput = z.input<typeof addObservationsInput>;

/**
 * GET /api/entities. `cursor` is a previous answer's `nextCursor`: the page
 * starts right after that answer's last entity, so entities created or
 * deleted between pages shift nothing (`offset` is ignored with it).
 */
export const entityListQuery = z.object({
  query: text().trim().max(500).optional(),
  types: commaList.optional(),
  ...pagination,
  cursor: z.string().max(2000).optional(),
});

export const observation = z.object({
  id: z.string(),
  content: z.string(),
  createdAt: z.string(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** When the fact held in the world, when its writer said (docs/history.md). */
  validFrom: z.string().optional(),
  validTo: z.string().optional(),
});
export type Observation = z.infer<typeof observation>;

export const entity = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  /** Other names it goes by; every by-name door resolves them to it. */
  aliases: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  observations: z.array(observation),
  observationsCount: z.number().int(),
  /** Present (true) when the read limits cut `observations`; `observationsCount` is the full count. */
  observationsTruncated: z.boolean().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Entity = z.infer<typeof entity>;

/**
 * Every list says where the next page starts (null at the end) and whether
 * the server's read limits cut this one short (docs/security.md): a cut is
 * never silent.
 */
const listPaging = {
  /** Offset of the next page; null when nothing follows. */
  nextOffset: z.number().int().nullable(),
  /** True when the answer holds fewer items than asked for because a row or size limit was reached. */
  truncated: z.boolean(),
};

export const entityList = z.object({
  entities: z.array(entity),
  total: z.number().int(),
  ...listPaging,
  /** Pass as `cursor` for the next page; null when nothing follows. */
  nextCursor: z.string().nullable(),
});
export type EntityList = z.infer<typeof entityList>;

export const typeSummary = z.object({
  type: z.string(),
  label: z.string(),
  count: z.number().int(),
});
export type TypeSummary = z.infer<typeof typeSummary>;

/** Types per page when no `limit` is given (the web app's pickers show one page, then search). */
export const TYPE_PAGE_DEFAULT = 100;

/**
 * GET /api/entities/types and /api/relations/types: one page, most common
 * first then by name. `cursor` is a previous answer's `nextCursor`; `prefix`
 * keeps the types starting with it, in any case.
 */
export const typeListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(TYPE_PAGE_DEFAULT),
  cursor: z.string().max(2000).optional(),
  prefix: text().max(TYPE_MAX).optional(),
});
export type TypeListQuery = z.input<typeof typeListQuery>;
export type TypeListQueryParsed = z.output<typeof typeListQuery>;

export const typeList = z.object({
  types: z.array(typeSummary),
  /** Pass as `cursor` for the next page; null when nothing follows. */
  nextCursor: z.string().nullable(),
});
export type TypeList = z.infer<typeof typeList>;

export const relationInput = z
  .object({
    fromEntityId: idString,
    toEntityId: idString,
    type: typeName('Relation type'),
    ...validity,
  })
  .refine(validFromNotAfterTo, validOrder);
export type RelationInput = z.input<typeof relationInput>;

/** PUT /api/relations/{id}: the type, and when it held (each replaced only when given; null clears). */
export const relationUpdateInput = z
  .object({
    type: typeName('Relation type'),
    validFrom: isoTime('validFrom').nullable().optional(),
    validTo: isoTime('validTo').nullable().optional(),
  })
  .refine(
    (value) =>
      validFromNotAfterTo({
        validFrom: value.validFrom ?? undefined,
        validTo: value.validTo ?? undefined,
      }),
    validOrder,
  );

export const relationListQuery = z.object({
  query: text().trim().max(500).optional(),
  relationTypes: commaList.optional(),
  entityId: idString.optional(),
  ...pagination,
});

const entityRef = z.object({ id: z.string(), name: z.string(), type: z.string() });

export const relation = z.object({
  id: z.string(),
  fromEntityId: z.string(),
  toEntityId: z.string(),
  /** The relation's kind; `relationType` carries the same value (both readings: docs/product.md, Shapes). */
  type: z.string(),
  relationType: z.string(),
  createdAt: z.string(),
  fromEntity: entityRef,
  toEntity: entityRef,
  validFrom: z.string().optional(),
  validTo: z.string().optional(),
});
export type Relation = z.infer<typeof relation>;

export const relationList = z.object({
  relations: z.array(relation),
  total: z.number().int(),
  ...listPaging,
});
export type RelationList = z.infer<typeof relationList>;

export const GRAPH_DEPTH_MAX = 5;
export const GRAPH_LIMIT_MAX = 1000;

const depth = z.coerce.number().int().min(1).max(GRAPH_DEPTH_MAX).default(2);

export const graphAroundQuery = z.object({ depth });

export const graphDataQuery = z.object({
  limit: z.coerce.number().int().min(1).max(GRAPH_LIMIT_MAX).default(250),
  depth,
  rootEntityId: idString.optional(),
});

export const graphNode = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  observationsCount: z.number().int(),
});
export type GraphNode = z.infer<typeof graphNode>;

export const graphEdge = z.object({
  id: z.string(),
  fromEntityId: z.string(),
  toEntityId: z.string(),
  relationType: z.string(),
  type: z.string(),
});
export type GraphEdge = z.infer<typeof graphEdge>;

export const graphData = z.object({
  entities: z.array(graphNode),
  relations: z.array(graphEdge),
});
export type GraphData = z.infer<typeof graphData>;
