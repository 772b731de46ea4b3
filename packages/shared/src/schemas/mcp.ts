import { z } from 'zod';
import { text } from './common.js';
import { AS_OF_HELP, asOfParam, revertResult } from './history.js';
import {
  DUPLICATES_PAGE_DEFAULT,
  DUPLICATES_PAGE_MAX,
  duplicateList,
  MERGE_SOURCES_MAX,
  mergeResult,
} from './duplicates.js';
import {
  ENTITY_NAME_MAX,
  GRAPH_DEPTH_MAX,
  metadataObject,
  OBSERVATION_MAX,
  TYPE_MAX,
  TYPE_PAGE_DEFAULT,
  validFromNotAfterTo,
  validity,
  validOrder,
} from './graph.js';
import {
  CONTEXT_CHARS_DEFAULT,
  CONTEXT_CHARS_MAX,
  CONTEXT_CHARS_MIN,
  contextAnswer,
  RECALL_FILTER_MAX,
  RECALL_QUERY_MAX,
  recallAnswer,
  recallLimitArg,
} from './recall.js';

/**
 * The MCP tools' arguments and answers (their table, with titles and
 * descriptions: tools/mcp.ts).
 * Argument shapes are those of @modelcontextprotocol/server-memory, so an agent
 * configured for it works unchanged; limits only refuse what no graph could hold.
 */

/** Items one write call may carry: a bulk load of 100,000 relations is one call. */
export const MCP_BATCH_MAX = 100_000;

const name = (what: string) => text().max(ENTITY_NAME_MAX).describe(what);
/** recall's and get_context's choice to answer "nothing" when even the best match is too weak. */
const abstainArg = z
  .boolean()
  .optional()
  .describe(
    'Default true: when even the best match is too weak, answer nothing (abstained: true). false: best-effort results anyway, each with its confidence (0–1)',
  );

/** What recall and get_context are asked about. */
const question = () =>
  text().trim().min(1).max(RECALL_QUERY_MAX).describe('The question or topic, in plain words');

export const mcpEntity = z.object({
  name: name('The name of the entity'),
  entityType: text().max(TYPE_MAX).describe('The type of the entity'),
  observations: z
    .array(text().max(OBSERVATION_MAX))
    .describe('An array of observation contents associated with the entity'),
});
export type McpEntity = z.output<typeof mcpEntity>;

export const mcpRelation = z.object({
  from: name('The name of the entity where the relation starts'),
  to: name('The name of the entity where the relation ends'),
  relationType: text().max(TYPE_MAX).describe('The type of the relation'),
});
export type McpRelation = z.output<typeof mcpRelation>;

const graphOutput = z.object({
  entities: z.array(mcpEntity),
  relations: z.array(mcpRelation),
});
const successOutput = z.object({ success: z.boolean(), message: z.string() });
/** Optional on the writes that add facts: when they held in the world (not in the reference server). */
const validityArgs = {
  validFrom: validity.validFrom.describe(
    'When the fact started to hold in the world (ISO 8601), if known',
  ),
  validTo: validity.validTo.describe('When it stopped holding (ISO 8601), if it has'),
};

/** An optional argument of the reads: without it every tool keeps the reference's contract. */
const asOf = {
  asOf: asOfParam
    .optional()
    .describe(`Read the graph as it was then: ${AS_OF_HELP} (within the history the plan keeps)`),
};

const paging = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(MCP_BATCH_MAX)
    .optional()
    .describe('Return at most this many entities (default: all)'),
  offset: z.number().int().min(0).optional().describe('Skip this many entities first (default 0)'),
};

/** Each tool's input and output schema, by tool name (built once: zod schemas are costly). */
export const mcpToolSchemas = {
  create_entities: {
    inputSchema: z.object({ entities: z.array(mcpEntity).max(MCP_BATCH_MAX) }),
    outputSchema: z.object({
      entities: z.array(mcpEntity),
      /** Created entities that are probably another's (`duplicateOf`): merge or rename them. */
      possibleDuplicates: z
        .array(z.object({ name: z.string(), duplicateOf: z.string(), score: z.number() }))
        .optional(),
    }),
  },
  create_relations: {
    inputSchema: z.object({
      relations: z
        .array(mcpRelation.extend(validityArgs).refine(validFromNotAfterTo, validOrder))
        .max(MCP_BATCH_MAX),
    }),
    outputSchema: z.object({ relations: z.array(mcpRelation) }),
  },
  add_observations: {
    inputSchema: z.object({
      observations: z
        .array(
          z
            .object({
              entityName: name('The name of the entity to add the observations to'),
              contents: z
                .array(text().max(OBSERVATION_MAX))
                .describe('An array of observation contents to add'),
              ...validityArgs,
            })
            .refine(validFromNotAfterTo, validOrder),
        )
        .max(MCP_BATCH_MAX),
    }),
    outputSchema: z.object({
      results: z.array(
        z.object({ entityName: z.string(), addedObservations: z.array(z.string()) }),
      ),
    }),
  },
  delete_entities: {
    inputSchema: z.object({
      entityNames: z
        .array(text().max(ENTITY_NAME_MAX))
        .max(MCP_BATCH_MAX)
        .describe('An array of entity names to delete'),
    }),
    outputSchema: successOutput,
  },
  delete_observations: {
    inputSchema: z.object({
      deletions: z
        .array(
          z.object({
            entityName: name('The name of the entity containing the observations'),
            observations: z
              .array(text().max(OBSERVATION_MAX))
              .describe('An array of observations to delete'),
          }),
        )
        .max(MCP_BATCH_MAX),
    }),
    outputSchema: successOutput,
  },
  delete_relations: {
    inputSchema: z.object({
      relations: z
        .array(mcpRelation)
        .max(MCP_BATCH_MAX)
        .describe('An array of relations to delete'),
    }),
    outputSchema: successOutput,
  },
  read_graph: {
    inputSchema: z.object({ ...paging, ...asOf }),
    outputSchema: graphOutput,
  },
  search_nodes: {
    inputSchema: z.object({
      query: z
        .string()
        .max(500)
        .describe('The search query to match against entity names, types, and observation content'),
      ...paging,
      ...asOf,
    }),
    outputSchema: graphOutput,
  },
  open_nodes: {
    inputSchema: z.object({
      names: z
        .array(text().max(ENTITY_NAME_MAX))
        .max(MCP_BATCH_MAX)
        .describe('An array of entity names to retrieve'),
      ...asOf,
    }),
    outputSchema: graphOutput,
  },
  update_entity: {
    inputSchema: z.object({
      name: name('The current name of the entity'),
      newName: text().max(ENTITY_NAME_MAX).optional().describe('The new name'),
      entityType: text().max(TYPE_MAX).optional().describe('The new type'),
      metadata: metadataObject.optional().describe('Replaces the metadata object'),
    }),
    outputSchema: z.object({
      entity: mcpEntity.extend({ metadata: z.record(z.string(), z.unknown()) }),
    }),
  },
  get_neighbors: {
    inputSchema: z.object({
      name: name('The entity to start from'),
      depth: z
        .number()
        .int()
        .min(1)
        .max(GRAPH_DEPTH_MAX)
        .optional()
        .describe('Hops (1–5, default 1)'),
      limit: z.number().int().min(1).max(1000).optional().describe('Most entities (default 100)'),
    }),
    outputSchema: graphOutput,
  },
  find_path: {
    inputSchema: z.object({
      from: name('The entity to start from'),
      to: name('The entity to reach'),
      maxDepth: z.number().int().min(1).max(10).optional().describe('Most hops (default 6)'),
    }),
    outputSchema: z.object({
      found: z.boolean(),
      path: z.array(z.string()),
      relations: z.array(mcpRelation),
    }),
  },
  recall: {
    inputSchema: z.object({
      query: question(),
      limit: recallLimitArg('results'),
      entityTypes: z
        .array(text().max(TYPE_MAX))
        .max(RECALL_FILTER_MAX)
        .optional()
        .describe('Only observations of entities of these types'),
      entityNames: z
        .array(text().max(ENTITY_NAME_MAX))
        .max(RECALL_FILTER_MAX)
        .optional()
        .describe('Only observations of these entities (exact names)'),
      abstain: abstainArg,
      ...asOf,
    }),
    outputSchema: recallAnswer,
  },
  get_context: {
    inputSchema: z.object({
      query: question(),
      maxChars: z
        .number()
        .int()
        .min(CONTEXT_CHARS_MIN)
        .max(CONTEXT_CHARS_MAX)
        .optional()
        .describe(`Most characters of context (default ${CONTEXT_CHARS_DEFAULT})`),
      abstain: abstainArg,
    }),
    outputSchema: contextAnswer,
  },
  list_types: {
    inputSchema: z.object({
      limit: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .optional()
        .describe(`Most types of each kind in this page (default ${TYPE_PAGE_DEFAULT})`),
      cursor: z.string().max(2000).optional().describe('The nextCursor of the previous page'),
      prefix: text()
        .max(TYPE_MAX)
        .optional()
        .describe('Only the types that start with this text, in any case'),
    }),
    outputSchema: z.object({
      entityTypes: z.array(z.object({ type: z.string(), count: z.number() })),
      relationTypes: z.array(z.object({ type: z.string(), count: z.number() })),
      nextCursor: z.string().nullable(),
    }),
  },
  undo_last: {
    inputSchema: z.object({}),
    outputSchema: revertResult,
  },
  find_duplicates: {
    inputSchema: z.object({
      limit: z
        .number()
        .int()
        .min(1)
        .max(DUPLICATES_PAGE_MAX)
        .optional()
        .describe(`Most candidate pairs in this page (default ${DUPLICATES_PAGE_DEFAULT})`),
      cursor: z.string().max(2000).optional().describe('The nextCursor of the previous page'),
    }),
    outputSchema: duplicateList,
  },
  merge_entities: {
    inputSchema: z.object({
      target: name('The entity that stays (its name or an alias)'),
      sources: z
        .array(text().max(ENTITY_NAME_MAX))
        .min(1)
        .max(MERGE_SOURCES_MAX)
        .describe(
          'The entities merged into the target and removed; their names become its aliases',
        ),
      name: name('A new name for the target (its old name becomes an alias)').optional(),
      entityType: text().max(TYPE_MAX).optional().describe('A new type for the target'),
    }),
    outputSchema: z.object({
      entity: z.object({
        name: z.string(),
        entityType: z.string(),
        aliases: z.array(z.string()),
        observations: z.array(z.string()),
      }),
      merged: mergeResult.shape.merged,
      callSeq: z.number().int(),
    }),
  },
};
