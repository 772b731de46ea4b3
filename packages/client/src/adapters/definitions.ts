/**
 * Engram's tools for agent frameworks, defined once: each tool's name,
 * description and JSON Schema (generated from packages/shared's tool
 * vocabulary into ../generated/tools.ts) and what it does with a client.
 * The adapters (`@engram/client/ai-sdk`, `/langchain`, `/openai-agents`)
 * wrap these in their framework's tool type and add nothing else, so every
 * framework sees the same tools. Nothing here imports a framework.
 *
 * The names follow the server's MCP tools where they do the same thing
 * (`recall`, `search_nodes`, `open_nodes`, `create_relations`,
 * `delete_relations`, `get_neighbors`, `get_context`); `remember` and
 * `forget` are the two an agent needs most, each one call whatever the graph
 * already holds.
 */
import type { Engram } from '../client.js';
import { DEFAULT_ENTITY_TYPE, engramToolVocabulary } from '../generated/tools.js';
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

export { DEFAULT_ENTITY_TYPE } from '../generated/tools.js';
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

/** A tool: its name, description and schema from the vocabulary, and what it does. */
function define<Args, Result>(
  name: EngramToolName,
  { execute }: Pick<EngramToolDefinition<Args, Result>, 'execute'>,
): EngramToolDefinition<Args, Result> {
  return { ...engramToolVocabulary[name], execute };
}

// ── the tools ───────────────────────────────────────────────────────────────

export const remember = define<RememberArgs, RememberResult>('remember', {
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

export const recall = define<RecallArgs, RecallToolResult>('recall', {
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

export const forget = define<ForgetArgs, ForgetResult>('forget', {
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

export const searchNodes = define<SearchNodesArgs, GraphResult>('search_nodes', {
  async execute(client, { query, limit }) {
    const page = await firstPage(client.entities.list({ query, limit: limit ?? 10 }));
    return { entities: page.entities.map(toEntity), relations: [] };
  },
});

export const openNodes = define<OpenNodesArgs, GraphResult>('open_nodes', {
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

export const createRelations = define<RelationsArgs, CreateRelationsResult>('create_relations', {
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

export const deleteRelations = define<RelationsArgs, DeleteRelationsResult>('delete_relations', {
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

export const getNeighbors = define<GetNeighborsArgs, NeighborsResult>('get_neighbors', {
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

export const getContext = define<GetContextArgs, ContextToolResult>('get_context', {
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
