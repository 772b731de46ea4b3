/**
 * Engram's tools for agent frameworks, defined once: each tool's name,
 * description, JSON Schema and what it does with a client. The adapters
 * (`@engram/client/ai-sdk`, `/langchain`, `/openai-agents`) wrap these in
 * their framework's tool type and add nothing else, so every framework sees
 * the same tools. Nothing here imports a framework.
 *
 * The names follow the server's MCP tools where they do the same thing
 * (`recall`, `search_nodes`, `open_nodes`, `create_relations`,
 * `delete_relations`, `get_neighbors`, `get_context`); `remember` and
 * `forget` are the two an agent needs most, each one call whatever the graph
 * already holds.
 */
import type { Engram } from '../client.js';
import { argumentProblem, withoutNulls } from './arguments.js';
import {
  entitiesByName,
  findEntityByName,
  firstPage,
  isCode,
  missingError,
  toEntity,
  toRelation,
} from './lookup.js';
import type {
  ContextToolResult,
  CreateRelationsResult,
  DeleteRelationsResult,
  ForgetArgs,
  ForgetResult,
  GetContextArgs,
  GetNeighborsArgs,
  EngramToolName,
  GraphResult,
  JsonObjectSchema,
  JsonSchema,
  NeighborsResult,
  OpenNodesArgs,
  RecallArgs,
  RecallToolResult,
  RelationsArgs,
  RememberArgs,
  RememberResult,
  SearchNodesArgs,
  ToolRelation,
} from './tool-types.js';

export { argumentProblem } from './arguments.js';
export { findEntityByName } from './lookup.js';
export type * from './tool-types.js';

/** One tool, as every adapter builds it. */
export interface EngramToolDefinition<Args = never, Result = unknown> {
  name: EngramToolName;
  description: string;
  parameters: JsonObjectSchema;
  /** True when the tool only reads the memory. */
  readOnly: boolean;
  /** Does it, with arguments already checked against `parameters` (`runEngramTool` checks them). */
  execute(client: Engram, args: Args, settings?: EngramToolSettings): Promise<Result>;
}

/** How the tools call Engram, the same for every call. */
export interface EngramToolSettings {
  /**
   * Whether `recall` and `get_context` may answer nothing when even their
   * best match is weak (`abstained: true`); the server's default (yes) when absent.
   */
  abstain?: boolean;
}

export interface EngramToolsOptions extends EngramToolSettings {
  /** Only these tools (by name); every tool when absent. */
  only?: readonly EngramToolName[];
  /** Only the tools that read the memory (`recall`, `search_nodes` …): an agent that cannot change it. */
  readOnly?: boolean;
}

// ── helpers ─────────────────────────────────────────────────────────────────

/** The type given to an entity `remember` creates when the agent names none. */
export const DEFAULT_ENTITY_TYPE = 'thing';

const TIME_HELP = 'an ISO 8601 date (2024-03-01) or time (2024-03-01T10:00:00Z), UTC';

const str = (description: string, maxLength: number): JsonSchema => ({
  type: 'string',
  description,
  minLength: 1,
  maxLength,
});
const entityName = (description: string) => str(description, 500);
const relationSchema: JsonSchema = {
  type: 'object',
  properties: {
    from: entityName('The entity the relation starts at'),
    to: entityName('The entity it points to'),
    relationType: str('The relation, in active voice (works_at, knows, depends_on)', 100),
  },
  required: ['from', 'to', 'relationType'],
  additionalProperties: false,
};

function objectSchema(
  properties: Record<string, JsonSchema>,
  required: string[],
): JsonObjectSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

function define<Args, Result>(
  definition: EngramToolDefinition<Args, Result>,
): EngramToolDefinition<Args, Result> {
  return definition;
}

// ── the tools ───────────────────────────────────────────────────────────────

export const remember = define<RememberArgs, RememberResult>({
  name: 'remember',
  description:
    'Save facts about a person, project, place or anything else to long-term memory. Each fact is one short self-contained sentence ("Prefers tea over coffee"). The entity is created when the memory does not have it yet; facts it already has are skipped.',
  parameters: objectSchema(
    {
      entity: entityName('The name of who or what the facts are about ("Ada Lovelace")'),
      type: str(
        `What kind of thing it is (person, project, organization …), used when it is new; "${DEFAULT_ENTITY_TYPE}" when not given`,
        100,
      ),
      facts: {
        type: 'array',
        description: 'The facts to remember, one sentence each',
        items: str('One fact', 10_000),
        minItems: 1,
        maxItems: 100,
      },
    },
    ['entity', 'facts'],
  ),
  readOnly: false,
  async execute(client, { entity: name, type, facts }) {
    const existing = await findEntityByName(client, name);
    if (!existing) {
      try {
        const created = await client.entities.create({
          name: name.trim(),
          type: type?.trim() || DEFAULT_ENTITY_TYPE,
          observations: facts,
        });
        const added = created.observations.map((observation) => observation.content);
        const duplicates = created.possibleDuplicates.map((entity) => entity.name);
        return {
          entity: created.name,
          type: created.type,
          created: true,
          added,
          alreadyKnown: 0,
          ...(duplicates.length > 0 ? { possibleDuplicates: duplicates } : {}),
        };
      } catch (error) {
        // Created meanwhile (or the name is another entity's alias): add to it instead.
        if (!isCode(error, 'CONFLICT')) throw error;
      }
    }
    const target = existing ?? (await findEntityByName(client, name));
    if (!target) throw new Error(`Could not create or find an entity named "${name}"`);
    const { entity, added } = await client.entities.addObservations(target.id, facts);
    return {
      entity: entity.name,
      type: entity.type,
      created: false,
      added: added.map((observation) => observation.content),
      alreadyKnown: facts.length - added.length,
    };
  },
});

/** The `since`/`until` parameters of recall and get_context. */
const timeRangeParameters = () => ({
  since: str(`Only facts from this time on: ${TIME_HELP}; inclusive`, 40),
  until: str(`Only facts up to this time: ${TIME_HELP}; inclusive`, 40),
});

export const recall = define<RecallArgs, RecallToolResult>({
  name: 'recall',
  description:
    'Ask the long-term memory a question in plain words ("When did Maya start her new job?", "what does the team use for CI"). Answers the individual facts that best answer it, best first, each with its entity and dates. Time words in the question ("last week", "in March 2024") limit the time range, or give since/until. Few or no results when nothing in memory answers it.',
  parameters: objectSchema(
    {
      question: str('The question, in plain words', 1_000),
      limit: {
        type: 'integer',
        description: 'Most facts to answer (default 10, at most 50)',
        minimum: 1,
        maximum: 50,
      },
      ...timeRangeParameters(),
    },
    ['question'],
  ),
  readOnly: true,
  async execute(client, { question, limit, since, until }, settings = {}) {
    const answer = await client.recall(question, {
      limit,
      since,
      until,
      abstain: settings.abstain,
    });
    return {
      question: answer.query,
      results: answer.results.map((hit) => ({
        fact: hit.observation,
        entity: hit.entityName,
        entityType: hit.entityType,
        createdAt: hit.createdAt,
        ...(hit.validFrom ? { validFrom: hit.validFrom } : {}),
        ...(hit.validTo ? { validTo: hit.validTo } : {}),
      })),
      ...(answer.timeRange
        ? { timeRange: { since: answer.timeRange.since, until: answer.timeRange.until } }
        : {}),
      ...(answer.abstained ? { abstained: true } : {}),
    };
  },
});

export const forget = define<ForgetArgs, ForgetResult>({
  name: 'forget',
  description:
    'Delete from long-term memory one fact about an entity (give the fact, as recall or open_nodes showed it), or the whole entity with every fact and relation (give no fact). Use when something is wrong, outdated, or the user asks to forget it.',
  parameters: objectSchema(
    {
      entity: entityName('The name of the entity'),
      fact: str('The fact to delete; leave out to delete the whole entity', 10_000),
    },
    ['entity'],
  ),
  readOnly: false,
  async execute(client, { entity: name, fact }) {
    const found = await findEntityByName(client, name);
    if (!found) return { forgotten: false, entity: name, reason: `No entity named "${name}"` };
    if (fact === undefined) {
      await client.entities.delete(found.id);
      return { forgotten: true, entity: found.name };
    }
    const entity = await client.entities.get(found.id);
    const contents = entity.observations.map((observation) => observation.content);
    const wanted = fact.trim();
    const match =
      contents.find((content) => content === wanted) ??
      contents.find((content) => content.trim().toLowerCase() === wanted.toLowerCase());
    if (match === undefined) {
      return {
        forgotten: false,
        entity: entity.name,
        reason: `"${entity.name}" has no such fact`,
        facts: contents.slice(0, 50),
      };
    }
    if (entity.observationsTruncated) {
      throw new Error(
        `"${entity.name}" has more facts than one read returns: delete this one in the Engram app`,
      );
    }
    await client.entities.update(entity.id, {
      name: entity.name,
      type: entity.type,
      observations: entity.observations
        .filter((observation) => observation.content !== match)
        .map(({ content, metadata, validFrom, validTo }) => ({
          content,
          ...(metadata ? { metadata } : {}),
          ...(validFrom ? { validFrom } : {}),
          ...(validTo ? { validTo } : {}),
        })),
    });
    return { forgotten: true, entity: entity.name, fact: match };
  },
});

export const searchNodes = define<SearchNodesArgs, GraphResult>({
  name: 'search_nodes',
  description:
    "Search the memory's entities by words in their name, type or facts, best matches first (exact name, name prefix, name, type, fact). Answers each entity with its facts; open_nodes or get_neighbors give relations. To ask a question in plain words, use recall.",
  parameters: objectSchema(
    {
      query: str('Words to match against entity names, types and facts', 500),
      limit: {
        type: 'integer',
        description: 'Most entities (default 10)',
        minimum: 1,
        maximum: 100,
      },
    },
    ['query'],
  ),
  readOnly: true,
  async execute(client, { query, limit }) {
    const page = await firstPage(client.entities.list({ query, limit: limit ?? 10 }));
    return { entities: page.entities.map(toEntity), relations: [] };
  },
});

export const openNodes = define<OpenNodesArgs, GraphResult>({
  name: 'open_nodes',
  description:
    'Open entities by their names: each with its facts, and the relations touching them.',
  parameters: objectSchema(
    {
      names: {
        type: 'array',
        description: 'The names of the entities',
        items: entityName('An entity name'),
        minItems: 1,
        maxItems: 20,
      },
    },
    ['names'],
  ),
  readOnly: true,
  async execute(client, { names }) {
    const { byName, missing } = await entitiesByName(client, names);
    const opened = await Promise.all(
      [...byName.values()].map(async (item) => {
        const [entity, relations] = await Promise.all([
          client.entities.get(item.id),
          firstPage(client.relations.list({ entityId: item.id, limit: 100 })),
        ]);
        return { entity, relations: relations.relations };
      }),
    );
    const relations = new Map<string, ToolRelation>();
    for (const { relations: list } of opened) {
      for (const relation of list) relations.set(relation.id, toRelation(relation));
    }
    return {
      entities: opened.map(({ entity }) => toEntity(entity)),
      relations: [...relations.values()],
      ...(missing.length > 0 ? { missing } : {}),
    };
  },
});

export const createRelations = define<RelationsArgs, CreateRelationsResult>({
  name: 'create_relations',
  description:
    'Link entities in memory: each relation goes from one entity to another, in active voice ("Ada Lovelace" works_with "Charles Babbage"). Both entities must exist (remember something about them first); relations the memory already has are skipped.',
  parameters: objectSchema(
    {
      relations: {
        type: 'array',
        description: 'The relations to create',
        items: relationSchema,
        minItems: 1,
        maxItems: 100,
      },
    },
    ['relations'],
  ),
  readOnly: false,
  async execute(client, { relations }) {
    const { byName, missing } = await entitiesByName(
      client,
      relations.flatMap((relation) => [relation.from, relation.to]),
    );
    if (missing.length > 0) throw missingError(missing);
    const created: ToolRelation[] = [];
    const alreadyKnown: ToolRelation[] = [];
    // One at a time: the same relation twice in a call is created once.
    for (const relation of relations) {
      const from = byName.get(relation.from.trim())!;
      const to = byName.get(relation.to.trim())!;
      const wanted = { from: from.name, to: to.name, relationType: relation.relationType.trim() };
      try {
        await client.relations.create({
          fromEntityId: from.id,
          toEntityId: to.id,
          type: wanted.relationType,
        });
        created.push(wanted);
      } catch (error) {
        if (!isCode(error, 'CONFLICT')) throw error;
        alreadyKnown.push(wanted);
      }
    }
    return { created, alreadyKnown };
  },
});

export const deleteRelations = define<RelationsArgs, DeleteRelationsResult>({
  name: 'delete_relations',
  description: 'Delete relations between entities from memory (the entities stay).',
  parameters: objectSchema(
    {
      relations: {
        type: 'array',
        description: 'The relations to delete',
        items: relationSchema,
        minItems: 1,
        maxItems: 100,
      },
    },
    ['relations'],
  ),
  readOnly: false,
  async execute(client, { relations }) {
    const { byName } = await entitiesByName(
      client,
      relations.flatMap((relation) => [relation.from, relation.to]),
    );
    const deleted: ToolRelation[] = [];
    const notFound: ToolRelation[] = [];
    for (const relation of relations) {
      const from = byName.get(relation.from.trim());
      const to = byName.get(relation.to.trim());
      const type = relation.relationType.trim();
      const page =
        from && to
          ? await firstPage(
              client.relations.list({ entityId: from.id, relationTypes: [type], limit: 1000 }),
            )
          : undefined;
      const match = page?.relations.find(
        (item) =>
          item.fromEntity.id === from?.id &&
          item.toEntity.id === to?.id &&
          item.relationType === type,
      );
      if (!match) {
        notFound.push(relation);
        continue;
      }
      await client.relations.delete(match.id);
      deleted.push(toRelation(match));
    }
    return { deleted, notFound };
  },
});

export const getNeighbors = define<GetNeighborsArgs, NeighborsResult>({
  name: 'get_neighbors',
  description:
    'The entity and every entity within `depth` relations of it (either direction), with the relations among them.',
  parameters: objectSchema(
    {
      name: entityName('The entity to start from'),
      depth: { type: 'integer', description: 'Hops (1–5, default 1)', minimum: 1, maximum: 5 },
    },
    ['name'],
  ),
  readOnly: true,
  async execute(client, { name, depth }) {
    const start = await findEntityByName(client, name);
    if (!start) throw missingError([name]);
    const graph = await client.relations.neighbors(start.id, { depth: depth ?? 1 });
    const names = new Map(graph.entities.map((entity) => [entity.id, entity.name]));
    return {
      entities: graph.entities.map((entity) => ({
        name: entity.name,
        entityType: entity.type,
        observationsCount: entity.observationsCount,
      })),
      relations: graph.relations.map((relation) => ({
        from: names.get(relation.fromEntityId) ?? relation.fromEntityId,
        to: names.get(relation.toEntityId) ?? relation.toEntityId,
        relationType: relation.relationType,
      })),
    };
  },
});

export const getContext = define<GetContextArgs, ContextToolResult>({
  name: 'get_context',
  description:
    'One block of text with what the memory knows about a topic or question — the best facts grouped by entity, each with its date when known, and the relations among those entities — to read before answering.',
  parameters: objectSchema(
    {
      query: str('The question or topic, in plain words', 1_000),
      maxChars: {
        type: 'integer',
        description: 'Most characters of context (default 4000)',
        minimum: 200,
        maximum: 20_000,
      },
      ...timeRangeParameters(),
    },
    ['query'],
  ),
  readOnly: true,
  async execute(client, { query, maxChars, since, until }, settings = {}) {
    const answer = await client.context(query, {
      maxChars,
      since,
      until,
      abstain: settings.abstain,
    });
    return {
      context: answer.context || 'Nothing in memory answers that.',
      ...(answer.timeRange
        ? { timeRange: { since: answer.timeRange.since, until: answer.timeRange.until } }
        : {}),
    };
  },
});

/** Every tool, in the order adapters list them. */
export const engramToolDefinitions = [
  remember,
  recall,
  forget,
  searchNodes,
  openNodes,
  createRelations,
  deleteRelations,
  getNeighbors,
  getContext,
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a definition of any tool's arguments
export type AnyEngramToolDefinition = EngramToolDefinition<any, unknown>;

/** The tools `options` asks for, in their order. */
export function selectEngramTools(options: EngramToolsOptions = {}): AnyEngramToolDefinition[] {
  const only = options.only ? new Set<string>(options.only) : undefined;
  for (const name of only ?? []) {
    if (!engramToolDefinitions.some((tool) => tool.name === name)) {
      throw new TypeError(`Engram: no tool named "${name}"`);
    }
  }
  return engramToolDefinitions.filter(
    (tool) => (!only || only.has(tool.name)) && (!options.readOnly || tool.readOnly),
  );
}

/**
 * Runs a tool: checks the arguments against its schema (a `TypeError`
 * naming the field when they do not fit), then calls Engram. What the
 * framework hands a tool goes through here.
 */
export async function runEngramTool(
  tool: AnyEngramToolDefinition,
  client: Engram,
  args: unknown,
  settings: EngramToolSettings = {},
): Promise<unknown> {
  const given = withoutNulls(args);
  const problem = argumentProblem(tool.parameters, given);
  if (problem) throw new TypeError(`${tool.name}: ${problem}`);
  return tool.execute(client, given, settings);
}
