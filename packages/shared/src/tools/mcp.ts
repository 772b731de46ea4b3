import { RECALL_TIME_HELP, recallTimeArgs } from '../schemas/recall.js';
import { mcpToolSchemas } from '../schemas/mcp.js';

/**
 * The MCP tools, in the order `tools/list` answers them: each one's title,
 * description, input and output schemas and hints. The server registers
 * exactly these (packages/server/src/mcp/tools/); docs/mcp.md describes them.
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

/** Built once: zod schemas are costly to build and compile. */
export const mcpTools = {
  create_entities: {
    title: 'Create Entities',
    description:
      'Create multiple new entities in the knowledge graph. Names that already exist are skipped; the same name twice in one call becomes one entity. Returns the entities created.',
    ...mcpToolSchemas.create_entities,
    annotations: writes,
  },
  create_relations: {
    title: 'Create Relations',
    description:
      'Create multiple new relations between entities in the knowledge graph. Relations should be in active voice. Both ends must exist; relations that already exist are skipped. Returns the relations created.',
    ...mcpToolSchemas.create_relations,
    annotations: writes,
  },
  add_observations: {
    title: 'Add Observations',
    description:
      'Add new observations to existing entities in the knowledge graph. Observations the entity already has are skipped.',
    ...mcpToolSchemas.add_observations,
    annotations: writes,
  },
  delete_entities: {
    title: 'Delete Entities',
    description: 'Delete multiple entities and their associated relations from the knowledge graph',
    ...mcpToolSchemas.delete_entities,
    annotations: deletes,
  },
  delete_observations: {
    title: 'Delete Observations',
    description: 'Delete specific observations from entities in the knowledge graph',
    ...mcpToolSchemas.delete_observations,
    annotations: deletes,
  },
  delete_relations: {
    title: 'Delete Relations',
    description: 'Delete multiple relations from the knowledge graph',
    ...mcpToolSchemas.delete_relations,
    annotations: deletes,
  },
  read_graph: {
    title: 'Read Graph',
    description:
      'Read the entire knowledge graph. With limit/offset, reads one page of entities (oldest first) with the relations that start at them.',
    ...mcpToolSchemas.read_graph,
    annotations: reads,
  },
  search_nodes: {
    title: 'Search Nodes',
    description:
      'Search for nodes in the knowledge graph based on a query. Matches entity names, types and observation content, case-insensitively; best matches first (exact name, name prefix, name, type, observation). Returns the relations touching the matches. To ask a question in plain words ("When did Maya start her new job?"), use `recall`.',
    ...mcpToolSchemas.search_nodes,
    annotations: reads,
  },
  recall: {
    title: 'Recall',
    description:
      'Ask the memory a question in plain words ("When did Maya start her new job?", "what does the team use for CI"). Answers the individual observations that best answer it, best first, each with its entity, when it was written (createdAt) and when the fact held (validFrom/validTo, null when not said) — never whole entities. Each result carries a confidence (0–1). When even the best match is too weak the memory does not answer: no results, abstained: true and abstainReason; pass abstain: false for best-effort results anyway. Filter with entityTypes or entityNames (exact names or aliases). since/until keep only facts in that time range (both inclusive; a fact\'s time is validFrom when set, else createdAt); without them, time words in the question ("last week", "in March 2024", "recently", "now") set the range, read against `now` (default: the server\'s time, or asOf\'s). timeRange in the answer says which range applied.',
    ...mcpToolSchemas.recall,
    inputSchema: mcpToolSchemas.recall.inputSchema.extend(timeArgs),
    annotations: reads,
  },
  get_context: {
    title: 'Get Context',
    description:
      "One block of text to put in a prompt: what the memory knows about a question — the best observations grouped by entity, each line with the fact's date when known, with the relations among those entities — cut to maxChars. since/until and the question's time words keep to a time range as in recall; abstains as recall does (empty context, abstained: true) unless abstain: false.",
    ...mcpToolSchemas.get_context,
    inputSchema: mcpToolSchemas.get_context.inputSchema.extend(timeArgs),
    annotations: reads,
  },
  open_nodes: {
    title: 'Open Nodes',
    description:
      'Open specific nodes in the knowledge graph by their names, with every relation touching them',
    ...mcpToolSchemas.open_nodes,
    annotations: reads,
  },
  undo_last: {
    title: 'Undo Last',
    description:
      'Undo the last write this credential made in this memory (a whole call: every entity, observation and relation it created, changed or deleted is put back), recorded as a change itself. Call again to undo the one before. Fails, naming what, when something it changed was changed since.',
    ...mcpToolSchemas.undo_last,
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  },
  update_entity: {
    title: 'Update Entity',
    description:
      'Rename an entity, change its type, or replace its metadata (a JSON object). Its observations and relations stay attached.',
    ...mcpToolSchemas.update_entity,
    annotations: { ...writes, idempotentHint: true },
  },
  get_neighbors: {
    title: 'Get Neighbors',
    description:
      'The entity and every entity within `depth` relations of it (either direction), nearest first, with the relations among them.',
    ...mcpToolSchemas.get_neighbors,
    annotations: reads,
  },
  find_path: {
    title: 'Find Path',
    description:
      'A shortest chain of relations between two entities, following relations in either direction. Returns found=false when none exists within maxDepth hops.',
    ...mcpToolSchemas.find_path,
    annotations: reads,
  },
  find_duplicates: {
    title: 'Find Duplicates',
    description:
      'List pairs of entities that are probably the same thing (names that differ in case, spelling, initials or abbreviations; shared neighbours and observations), best first, each with a score between 0 and 1 and the reasons. Merge a pair with merge_entities.',
    ...mcpToolSchemas.find_duplicates,
    annotations: reads,
  },
  merge_entities: {
    title: 'Merge Entities',
    description:
      "Merge entities that are one thing: the sources' observations and relations move to the target (repeats kept once), their names become its aliases, and they are removed. One call: undo_last takes it back.",
    ...mcpToolSchemas.merge_entities,
    annotations: writes,
  },
  list_types: {
    title: 'List Types',
    description:
      'The entity types and relation types in use, with how many of each, most common first: one page of each list (100 unless `limit` says otherwise). When `nextCursor` is not null, call again with `cursor` set to it (and the same `prefix`) for the next page.',
    ...mcpToolSchemas.list_types,
    annotations: reads,
  },
};

export type McpToolName = keyof typeof mcpTools;
