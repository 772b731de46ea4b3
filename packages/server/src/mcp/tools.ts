import { mcpTools, RECALL_TIME_HELP, recallTimeArgs } from '@engram/shared';
import { z } from 'zod';

/**
 * The MCP tools' titles, descriptions, schemas (shared `mcpTools`) and hints,
 * as memory-server.ts registers them.
 */

const writes = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
const deletes = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
const reads = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** recall's and get_context's time range, described for an agent. */
const timeArgs = {
  since: recallTimeArgs.since.describe(
    `Only facts from this time on: ${RECALL_TIME_HELP}; inclusive`,
  ),
  until: recallTimeArgs.until.describe(
    `Only facts up to this time: ${RECALL_TIME_HELP}; inclusive, a date alone covers its whole day`,
  ),
  now: recallTimeArgs.now.describe(
    `What time words in the question ("yesterday", "last week") are read against: ${RECALL_TIME_HELP} (default: now)`,
  ),
};

/**
 * Each tool's title, description, schemas and hints, built once: zod schemas
 * are costly to build and compile, and a 2026-era request gets a new server.
 */
export const TOOLS = {
  create_entities: {
    title: 'Create Entities',
    description:
      'Create multiple new entities in the knowledge graph. Names that already exist are skipped; the same name twice in one call becomes one entity. Returns the entities created.',
    ...mcpTools.create_entities,
    annotations: writes,
  },
  create_relations: {
    title: 'Create Relations',
    description:
      'Create multiple new relations between entities in the knowledge graph. Relations should be in active voice. Both ends must exist; relations that already exist are skipped. Returns the relations created.',
    ...mcpTools.create_relations,
    annotations: writes,
  },
  add_observations: {
    title: 'Add Observations',
    description:
      'Add new observations to existing entities in the knowledge graph. Observations the entity already has are skipped.',
    ...mcpTools.add_observations,
    annotations: writes,
  },
  delete_entities: {
    title: 'Delete Entities',
    description: 'Delete multiple entities and their associated relations from the knowledge graph',
    ...mcpTools.delete_entities,
    annotations: deletes,
  },
  delete_observations: {
    title: 'Delete Observations',
    description: 'Delete specific observations from entities in the knowledge graph',
    ...mcpTools.delete_observations,
    annotations: deletes,
  },
  delete_relations: {
    title: 'Delete Relations',
    description: 'Delete multiple relations from the knowledge graph',
    ...mcpTools.delete_relations,
    annotations: deletes,
  },
  read_graph: {
    title: 'Read Graph',
    description:
      'Read the entire knowledge graph. With limit/offset, reads one page of entities (oldest first) with the relations that start at them.',
    ...mcpTools.read_graph,
    annotations: reads,
  },
  search_nodes: {
    title: 'Search Nodes',
    description:
      'Search for nodes in the knowledge graph based on a query. Matches entity names, types and observation content, case-insensitively; best matches first (exact name, name prefix, name, type, observation). Returns the relations touching the matches. To ask a question in plain words ("When did Maya start her new job?"), use `recall`.',
    ...mcpTools.search_nodes,
    annotations: reads,
  },
  open_nodes: {
    title: 'Open Nodes',
    description:
      'Open specific nodes in the knowledge graph by their names, with every relation touching them',
    ...mcpTools.open_nodes,
    annotations: reads,
  },
  update_entity: {
    title: 'Update Entity',
    description:
      'Rename an entity, change its type, or replace its metadata (a JSON object). Its observations and relations stay attached.',
    ...mcpTools.update_entity,
    annotations: { ...writes, idempotentHint: true },
  },
  get_neighbors: {
    title: 'Get Neighbors',
    description:
      'The entity and every entity within `depth` relations of it (either direction), nearest first, with the relations among them.',
    ...mcpTools.get_neighbors,
    annotations: reads,
  },
  find_duplicates: {
    title: 'Find Duplicates',
    description:
      'List pairs of entities that are probably the same thing (names that differ in case, spelling, initials or abbreviations; shared neighbours and observations), best first, each with a score between 0 and 1 and the reasons. Merge a pair with merge_entities.',
    ...mcpTools.find_duplicates,
    annotations: reads,
  },
  merge_entities: {
    title: 'Merge Entities',
    description:
      "Merge entities that are one thing: the sources' observations and relations move to the target (repeats kept once), their names become its aliases, and they are removed. One call: undo_last takes it back.",
    ...mcpTools.merge_entities,
    annotations: writes,
  },
  find_path: {
    title: 'Find Path',
    description:
      'A shortest chain of relations between two entities, following relations in either direction. Returns found=false when none exists within maxDepth hops.',
    ...mcpTools.find_path,
    annotations: reads,
  },
  recall: {
    title: 'Recall',
    description:
      'Ask the memory a question in plain words ("When did Maya start her new job?", "what does the team use for CI"). Answers the individual observations that best answer it, best first, each with its entity, when it was written (createdAt) and when the fact held (validFrom/validTo, null when not said) — never whole entities. Each result carries a confidence (0–1). When even the best match is too weak the memory does not answer: no results, abstained: true and abstainReason; pass abstain: false for best-effort results anyway. Filter with entityTypes or entityNames (exact names or aliases). since/until keep only facts in that time range (both inclusive; a fact\'s time is validFrom when set, else createdAt); without them, time words in the question ("last week", "in March 2024", "recently", "now") set the range, read against `now` (default: the server\'s time, or asOf\'s). timeRange in the answer says which range applied.',
    ...mcpTools.recall,
    inputSchema: mcpTools.recall.inputSchema.extend(timeArgs),
    annotations: reads,
  },
  get_context: {
    title: 'Get Context',
    description:
      "One block of text to put in a prompt: what the memory knows about a question — the best observations grouped by entity, each line with the fact's date when known, with the relations among those entities — cut to maxChars. since/until and the question's time words keep to a time range as in recall; abstains as recall does (empty context, abstained: true) unless abstain: false.",
    ...mcpTools.get_context,
    inputSchema: mcpTools.get_context.inputSchema.extend(timeArgs),
    annotations: reads,
  },
  undo_last: {
    title: 'Undo Last',
    description:
      'Undo the last write this credential made in this memory (a whole call: every entity, observation and relation it created, changed or deleted is put back), recorded as a change itself. Call again to undo the one before. Fails, naming what, when something it changed was changed since.',
    ...mcpTools.undo_last,
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  },
  list_types: {
    title: 'List Types',
    description:
      'The entity types and relation types in use, with how many of each, most common first: one page of each list (100 unless `limit` says otherwise). When `nextCursor` is not null, call again with `cursor` set to it (and the same `prefix`) for the next page.',
    ...mcpTools.list_types,
    annotations: reads,
  },
};

const memoisedSchemas = new WeakSet<z.ZodType>();
type Options = Parameters<z.ZodType['~standard']['jsonSchema']['input']>[0];

/**
 * Makes `schema` convert to JSON Schema once. The SDK converts a tool's
 * schemas on every `tools/list`, and its output schema once per server
 * instance: for each request on the 2026 era (~0.25 ms of CPU). The converted
 * schemas are only read (listed, and checked for an object root).
 */
function convertedOnce(schema: z.ZodType): void {
  // Tools share some output schemas (graphOutput, successOutput): wrap each once.
  if (memoisedSchemas.has(schema)) return;
  memoisedSchemas.add(schema);
  const standard = schema['~standard'];
  const memoised = (convert: (options: Options) => Record<string, unknown>) => {
    const converted = new Map<string, Record<string, unknown>>();
    return (options: Options) => {
      const key = JSON.stringify(options);
      let json = converted.get(key);
      if (!json) converted.set(key, (json = convert(options)));
      return json;
    };
  };
  // Not enumerable, as zod keeps it: nothing that walks a schema's keys sees it.
  Object.defineProperty(schema, '~standard', {
    configurable: true,
    writable: true,
    enumerable: false,
    value: {
      ...standard,
      jsonSchema: {
        input: memoised(standard.jsonSchema.input),
        output: memoised(standard.jsonSchema.output),
      },
    },
  });
}

for (const tool of Object.values(TOOLS)) {
  convertedOnce(tool.inputSchema);
  convertedOnce(tool.outputSchema);
}
