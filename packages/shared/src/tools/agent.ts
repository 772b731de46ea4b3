import { z } from 'zod';
import { ENTITY_NAME_MAX, OBSERVATION_MAX, TYPE_MAX } from '../schemas/graph.js';
import { mcpToolSchemas } from '../schemas/mcp.js';
import {
  RECALL_QUERY_MAX,
  RECALL_TIME_HELP,
  RECALL_TIME_MAX,
  recallLimitArg,
} from '../schemas/recall.js';

/**
 * The agent tools of @engram/client (its adapters for the Vercel AI SDK,
 * LangChain and the OpenAI Agents SDK): each one's description, input schema
 * and whether it only reads, in the order the adapters list them. The
 * client's build writes them out as JSON Schema (`agentToolsAsJson`, into
 * packages/client/src/generated/tools.ts), so the client carries no zod and
 * no shared package. A tool that does what an MCP tool does has its name;
 * `remember` and `forget` are the client's own, each one call whatever the
 * graph holds. The limits are the server's own constants.
 */

/** The type `remember` gives a new entity when the agent names none. */
export const AGENT_DEFAULT_ENTITY_TYPE = 'thing';

/** Items one agent tool call takes: a model writes a few facts or relations at a time. */
const ITEMS_MAX = 100;

/** The client reads `minLength: 1` as "not blank": models fill unknown strings with spaces. */
const words = (description: string, max: number) =>
  z.string().min(1).max(max).describe(description);
const entityName = (description: string) => words(description, ENTITY_NAME_MAX);
const fact = (description: string) => words(description, OBSERVATION_MAX);

const relation = z.object({
  from: entityName('The entity the relation starts at'),
  to: entityName('The entity it points to'),
  relationType: words('The relation, in active voice (works_at, knows, depends_on)', TYPE_MAX),
});
const relations = (description: string) =>
  z.array(relation).min(1).max(ITEMS_MAX).describe(description);

/** recall's and get_context's time range (the MCP tools' also take `now`). */
const timeRange = {
  since: words(
    `Only facts from this time on: ${RECALL_TIME_HELP}; inclusive`,
    RECALL_TIME_MAX,
  ).optional(),
  until: words(
    `Only facts up to this time: ${RECALL_TIME_HELP}; inclusive`,
    RECALL_TIME_MAX,
  ).optional(),
};

/** Fields said the same way as the MCP tools' own. */
const { depth } = mcpToolSchemas.get_neighbors.inputSchema.shape;
const { query: question, maxChars } = mcpToolSchemas.get_context.inputSchema.shape;

export const agentTools = {
  remember: {
    description:
      'Save facts about a person, project, place or anything else to long-term memory. Each fact is one short self-contained sentence ("Prefers tea over coffee"). The entity is created when the memory does not have it yet; facts it already has are skipped.',
    readOnly: false,
    inputSchema: z.object({
      entity: entityName('The name of who or what the facts are about ("Ada Lovelace")'),
      type: words(
        `What kind of thing it is (person, project, organization …), used when it is new; "${AGENT_DEFAULT_ENTITY_TYPE}" when not given`,
        TYPE_MAX,
      ).optional(),
      facts: z
        .array(fact('One fact'))
        .min(1)
        .max(ITEMS_MAX)
        .describe('The facts to remember, one sentence each'),
    }),
  },
  recall: {
    description:
      'Ask the long-term memory a question in plain words ("When did Maya start her new job?", "what does the team use for CI"). Answers the individual facts that best answer it, best first, each with its entity and dates. Time words in the question ("last week", "in March 2024") limit the time range, or give since/until. Few or no results when nothing in memory answers it.',
    readOnly: true,
    inputSchema: z.object({
      question: words('The question, in plain words', RECALL_QUERY_MAX),
      limit: recallLimitArg('facts to answer'),
      ...timeRange,
    }),
  },
  forget: {
    description:
      'Delete from long-term memory one fact about an entity (give the fact, as recall or open_nodes showed it), or the whole entity with every fact and relation (give no fact). Use when something is wrong, outdated, or the user asks to forget it.',
    readOnly: false,
    inputSchema: z.object({
      entity: entityName('The name of the entity'),
      fact: fact('The fact to delete; leave out to delete the whole entity').optional(),
    }),
  },
  search_nodes: {
    description:
      "Search the memory's entities by words in their name, type or facts, best matches first (exact name, name prefix, name, type, fact). Answers each entity with its facts; open_nodes or get_neighbors give relations. To ask a question in plain words, use recall.",
    readOnly: true,
    inputSchema: z.object({
      query: words('Words to match against entity names, types and facts', 500),
      limit: z.number().int().min(1).max(100).optional().describe('Most entities (default 10)'),
    }),
  },
  open_nodes: {
    description:
      'Open entities by their names: each with its facts, and the relations touching them.',
    readOnly: true,
    inputSchema: z.object({
      names: z
        .array(entityName('An entity name'))
        .min(1)
        .max(20)
        .describe('The names of the entities'),
    }),
  },
  create_relations: {
    description:
      'Link entities in memory: each relation goes from one entity to another, in active voice ("Ada Lovelace" works_with "Charles Babbage"). Both entities must exist (remember something about them first); relations the memory already has are skipped.',
    readOnly: false,
    inputSchema: z.object({ relations: relations('The relations to create') }),
  },
  delete_relations: {
    description: 'Delete relations between entities from memory (the entities stay).',
    readOnly: false,
    inputSchema: z.object({ relations: relations('The relations to delete') }),
  },
  get_neighbors: {
    description:
      'The entity and every entity within `depth` relations of it (either direction), with the relations among them.',
    readOnly: true,
    inputSchema: z.object({ name: entityName('The entity to start from'), depth }),
  },
  get_context: {
    description:
      'One block of text with what the memory knows about a topic or question — the best facts grouped by entity, each with its date when known, and the relations among those entities — to read before answering.',
    readOnly: true,
    inputSchema: z.object({ query: question, maxChars, ...timeRange }),
  },
};

export type AgentToolName = keyof typeof agentTools;

/** The keys of the JSON Schema subset the client checks arguments against, in the order written. */
const JSON_SCHEMA_KEYS = [
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
];

/** A JSON Schema in the client's subset: its keys in one order, anything else refused. */
function inClientSubset(schema: Record<string, unknown>, path: string): Record<string, unknown> {
  const unknown = Object.keys(schema).filter((key) => !JSON_SCHEMA_KEYS.includes(key));
  if (unknown.length > 0) {
    throw new Error(`${path}: ${unknown.join(', ')} is not in the client's JSON Schema subset`);
  }
  const out: Record<string, unknown> = {};
  for (const key of JSON_SCHEMA_KEYS) {
    const value = schema[key];
    if (value === undefined) continue;
    if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, Record<string, unknown>>).map(([name, item]) => [
          name,
          inClientSubset(item, `${path}.${name}`),
        ]),
      );
    } else if (key === 'items') {
      out[key] = inClientSubset(value as Record<string, unknown>, `${path}[]`);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The agent tools as the client's build writes them: names, descriptions and JSON Schemas. */
export function agentToolsAsJson() {
  return Object.entries(agentTools).map(([name, tool]) => {
    const { $schema: _draft, ...schema } = z.toJSONSchema(tool.inputSchema, {
      target: 'draft-7',
    });
    return {
      name,
      description: tool.description,
      parameters: inClientSubset(schema, name),
      readOnly: tool.readOnly,
    };
  });
}
