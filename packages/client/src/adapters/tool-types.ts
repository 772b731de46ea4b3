/**
 * The shapes of Engram's agent tools: their JSON Schema, and each tool's
 * arguments (generated from the schemas, ../generated/tools.ts) and answer
 * (definitions.ts).
 */
import type { EngramToolArguments } from '../generated/tools.js';

export type { EngramToolArguments, EngramToolName } from '../generated/tools.js';

/** The JSON Schema the tools' parameters are written in (a subset of draft 7). */
export interface JsonSchema {
  type: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  enum?: string[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

/** A tool's parameters: always an object. */
export interface JsonObjectSchema extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: string[];
  additionalProperties: false;
}

export type RememberArgs = EngramToolArguments['remember'];
export interface RememberResult {
  entity: string;
  type: string;
  /** True when the entity did not exist and was created. */
  created: boolean;
  /** The facts written (those it already had are left out). */
  added: string[];
  /** Facts it already had. */
  alreadyKnown: number;
  /** Existing entities this new one is probably the same as (merge them in the app). */
  possibleDuplicates?: string[];
}

export type RecallArgs = EngramToolArguments['recall'];
export interface RecalledFact {
  fact: string;
  entity: string;
  entityType: string;
  /** When it was written. */
  createdAt: string;
  /** When the fact held in the world, when its writer said. */
  validFrom?: string;
  validTo?: string;
}
export interface RecallToolResult {
  question: string;
  results: RecalledFact[];
  /** The time range the answer kept to (from since/until or the question's time words), if any. */
  timeRange?: { since: string | null; until: string | null };
  /** True when nothing in memory answers the question well enough. */
  abstained?: boolean;
}

export type ForgetArgs = EngramToolArguments['forget'];
export interface ForgetResult {
  forgotten: boolean;
  entity: string;
  /** The fact deleted; absent when the whole entity was. */
  fact?: string;
  /** Why nothing was forgotten. */
  reason?: string;
  /** The entity's facts, when the one to forget was not among them. */
  facts?: string[];
}

/** An entity as the MCP tools answer it. */
export interface ToolEntity {
  name: string;
  entityType: string;
  observations: string[];
}
/** A relation as the MCP tools answer it. */
export interface ToolRelation {
  from: string;
  to: string;
  relationType: string;
}

export type SearchNodesArgs = EngramToolArguments['search_nodes'];
export type OpenNodesArgs = EngramToolArguments['open_nodes'];
export interface GraphResult {
  entities: ToolEntity[];
  relations: ToolRelation[];
  /** Names asked for that no entity has. */
  missing?: string[];
}

export type RelationsArgs = EngramToolArguments['create_relations'];
export interface CreateRelationsResult {
  created: ToolRelation[];
  /** Relations the graph already had. */
  alreadyKnown: ToolRelation[];
}
export interface DeleteRelationsResult {
  deleted: ToolRelation[];
  /** Relations the graph did not have. */
  notFound: ToolRelation[];
}

export type GetNeighborsArgs = EngramToolArguments['get_neighbors'];
export interface NeighborsResult {
  entities: { name: string; entityType: string; observationsCount: number }[];
  relations: ToolRelation[];
}

export type GetContextArgs = EngramToolArguments['get_context'];
export interface ContextToolResult {
  context: string;
  timeRange?: { since: string | null; until: string | null };
}
