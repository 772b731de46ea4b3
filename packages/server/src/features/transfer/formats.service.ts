import {
  aliasList,
  entityName,
  metadataObject,
  OBSERVATION_MAX,
  typeName,
  UNLIMITED,
} from '@engram/shared';
import type { z } from 'zod';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { badRequest, planLimit } from '../../lib/errors.js';
import { currentPlan } from '../entitlements/index.js';
import { graphWrites } from '../graph/index.js';
import {
  assertZip,
  baseName,
  parseNote,
  zipNotes,
  type NoteEntity,
  type NoteFile,
} from './markdown.js';
// Reading a zip's notes, bounded whatever the zip declares.
import { readZip, ZIP_MAX_FILES } from './zip-reader.js';
import { aliasesLeftOut, ImportNames, type ImportSkip } from './import-names.js';
import { mem0Entities } from './mem0.js';
import * as transferRepo from './transfer.repository.js';
import {
  batches,
  emptySummary,
  entityPieces,
  importing,
  IMPORT_BATCH,
  IMPORT_BATCH_OBSERVATIONS,
  relationPages,
  type ImportSummary,
  type TransferDeps,
} from './transfer.service.js';

/**
 * The formats of other tools: Markdown notes in basic-memory's format (which
 * also reads an Obsidian vault) in and out, and mem0's exports in. Parsing
 * and writing the files is markdown.ts's and mem0.ts's; this checks what they
 * give and writes it through the graph's write path a batch at a time, with
 * the rules of transfer.service.ts (checked first, idempotent, a failure
 * midway keeps what was written and says so).
 */

/** An entity of a Markdown or mem0 import, checked. */
interface PlannedEntity {
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  aliases?: string[];
  observations: { content: string; metadata?: Record<string, unknown>; validFrom?: string }[];
  /** The note it comes from (a Markdown import). */
  file?: string;
}

/** A value checked by `schema`, or 400 naming `field`. */
function checked<T>(schema: z.ZodType<T>, value: unknown, field: string, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = [field, ...(issue?.path ?? [])].join('.');
  throw badRequest(path, `${what}: ${issue?.message}`);
}

function checkObservations(
  observations: PlannedEntity['observations'],
  field: string,
  what: string,
): PlannedEntity['observations'] {
  return observations.map((observation, index) => {
    if (observation.content.length > OBSERVATION_MAX) {
      throw badRequest(
        `${field}.${index}.content`,
        `${what}: an observation must be at most ${OBSERVATION_MAX} characters`,
      );
    }
    if (observation.metadata === undefined) return observation;
    const metadata = checked(
      metadataObject,
      observation.metadata,
      `${field}.${index}.metadata`,
      what,
    );
    return { ...observation, metadata };
  });
}

/**
 * The plan's limits, checked before anything is written (the whole import is
 * known): the new entities against the entities the plan allows, each
 * entity's observations against the most per entity. Each write checks them
 * again under the account's lock; this only refuses early, and whole.
 */
async function checkPlan(
  deps: TransferDeps,
  auth: SpaceAuth,
  entities: PlannedEntity[],
): Promise<void> {
  const plan = await currentPlan(deps.db, auth.accountId);
  const { maxEntities, maxObservationsPerEntity } = plan.features;
  if (maxObservationsPerEntity !== UNLIMITED) {
    const over = entities.find((entity) => entity.observations.length > maxObservationsPerEntity);
    if (over) {
      throw planLimit(
        `Observation limit reached: the ${plan.name} plan allows ${maxObservationsPerEntity.toLocaleString('en-US')} observations per entity ("${over.name}" has ${over.observations.length.toLocaleString('en-US')} in this import). Upgrade your plan to add more. Nothing was imported.`,
      );
    }
  }
  if (maxEntities === UNLIMITED) return;
  const names = [...new Set(entities.map((entity) => entity.name))];
  const present = await transferRepo.namesPresent(deps.db, auth.space.id, names);
  const adding = names.filter((name) => !present.has(name)).length;
  const has = await transferRepo.accountEntityCount(deps.db, auth.accountId);
  if (adding > 0 && has + adding > maxEntities) {
    throw planLimit(
      `Entity limit reached: the ${plan.name} plan allows ${maxEntities.toLocaleString('en-US')} entities; the account has ${has.toLocaleString('en-US')} and this import would add ${adding.toLocaleString('en-US')}. Upgrade your plan to add more. Nothing was imported.`,
    );
  }
}

/**
 * Writes planned entities a batch per transaction: the new names created
 * with their observations, the names the space has given the observations
 * they lack (a text the entity has is skipped); then the relations by name
 * whose ends exist. Running it twice adds nothing.
 */
async function writePlanned(
  deps: TransferDeps,
  auth: SpaceAuth,
  entities: PlannedEntity[],
  relations: { from: string; to: string; type: string }[],
): Promise<ImportSummary> {
  await checkPlan(deps, auth, entities);
  const names = new ImportNames();
  for (const entity of entities) names.note(entity);
  return importing(emptySummary(), async (summary) => {
    const each = async function* <T>(items: T[]) {
      yield* items;
    };
    const weigh = (entity: PlannedEntity) => entity.observations.length;
    for await (const given of batches(
      each(entities),
      IMPORT_BATCH,
      weigh,
      IMPORT_BATCH_OBSERVATIONS,
    )) {
      const keptBack: ImportSkip[] = [];
      const batch = given.map(({ file, ...entity }) => ({
        ...entity,
        aliases: names.aliasesOf(entity, keptBack, file),
      }));
      await deps.graph.write(auth, async (scope) => {
        const created = await graphWrites.createEntities(scope, batch);
        aliasesLeftOut(
          batch.map((entity, index) => ({ ...entity, file: given[index]!.file })),
          created.map(({ row }) => row),
          keptBack,
          summary.skipped,
        );
        const createdNames = new Set(created.map(({ row }) => row.name));
        summary.entities += created.length;
        for (const entity of created) summary.observations += entity.observations.length;
        const additions = batch.flatMap((entity, index) =>
          createdNames.has(entity.name) || entity.observations.length === 0
            ? []
            : [{ entity: entity.name, observations: entity.observations, field: `${index}` }],
        );
        if (additions.length === 0) return;
        const added = await graphWrites.addObservations(scope, additions, 'name');
        for (const rows of added.values()) summary.observations += rows.length;
      });
    }
    for await (const batch of batches(each(relations), IMPORT_BATCH)) {
      const { result: linked } = await deps.graph.write(auth, (scope) =>
        graphWrites.createRelationsByName(scope, batch),
      );
      summary.relations += linked.length;
    }
  });
}

/**
 * Imports Markdown notes in basic-memory's format or an Obsidian vault
 * (markdown.ts): each note an entity, its list items observations, its
 * `- type [[Target]]` lines and plain wikilinks relations. A relation whose
 * target is neither a note of the import nor an entity of the space is left
 * out. Every note is read and checked before anything is written.
 */
export async function importMarkdown(
  deps: TransferDeps,
  auth: SpaceAuth,
  files: NoteFile[],
): Promise<ImportSummary> {
  if (files.length > ZIP_MAX_FILES) {
    throw badRequest('files', `An import reads at most ${ZIP_MAX_FILES} notes`);
  }
  const notes = files.map(parseNote);
  const entities: PlannedEntity[] = notes.map((note) => {
    const where = (key: string) => `files.${note.path}.${key}`;
    const what = note.path;
    const name = checked(entityName, note.name, where('title'), what);
    return {
      name,
      file: note.path,
      type: checked(typeName('type'), note.type, where('type'), what),
      metadata: checked(metadataObject, note.metadata, where('metadata'), what),
      ...(note.aliases !== undefined
        ? { aliases: checked(aliasList, note.aliases, where('aliases'), what) }
        : {}),
      observations: checkObservations(note.observations, where('observations'), what),
    };
  });
  // A wikilink names a note by its title or its file's name, in any case (as Obsidian does).
  const named = new Map<string, string>();
  const lower = new Map<string, string>();
  notes.forEach((note, index) => {
    const name = entities[index]!.name;
    for (const key of [name, note.name, baseName(note.path)]) {
      if (!named.has(key)) named.set(key, name);
      if (!lower.has(key.toLowerCase())) lower.set(key.toLowerCase(), name);
    }
  });
  const resolve = (to: string) => named.get(to) ?? lower.get(to.toLowerCase());
  const outside = [
    ...new Set(
      notes.flatMap((note) => note.relations.map((r) => r.to)).filter((to) => !resolve(to)),
    ),
  ];
  const present = await transferRepo.namesPresent(deps.db, auth.space.id, outside);
  const seen = new Set<string>();
  const relations: { from: string; to: string; type: string }[] = [];
  notes.forEach((note, index) => {
    const from = entities[index]!.name;
    note.relations.forEach((relation, n) => {
      const to = resolve(relation.to) ?? (present.has(relation.to) ? relation.to : undefined);
      if (to === undefined || to === from) return;
      const type = checked(
        typeName('relation type'),
        relation.type,
        `files.${note.path}.relations.${n}.type`,
        note.path,
      );
      const key = JSON.stringify([from, to, type]);
      if (seen.has(key)) return;
      seen.add(key);
      relations.push({ from, to, type });
    });
  });
  return writePlanned(deps, auth, entities, relations);
}

/**
 * Imports a zip of Markdown notes, bounded in files and bytes and inflated
 * in a worker thread (zip-reader.ts `readZip`).
 */
export async function importMarkdownZip(
  deps: TransferDeps,
  auth: SpaceAuth,
  bytes: Uint8Array,
): Promise<ImportSummary> {
  assertZip(bytes);
  return importMarkdown(deps, auth, await readZip(bytes));
}

/**
 * Imports a mem0 export (mem0.ts): each memory an observation of its user's
 * or agent's entity, dated from its `created_at`; a memory an entity already
 * has is skipped.
 */
export async function importMem0(
  deps: TransferDeps,
  auth: SpaceAuth,
  value: unknown,
): Promise<ImportSummary> {
  const entities = mem0Entities(value).map((entity) => ({
    ...entity,
    name: checked(entityName, entity.name, 'user_id', 'mem0 export'),
    metadata: {},
    observations: checkObservations(entity.observations, entity.name, 'mem0 export'),
  }));
  return writePlanned(deps, auth, entities, []);
}

/**
 * The space's graph as a zip of Markdown notes (markdown.ts), one per
 * entity, its outgoing relations in it. Built in memory.
 */
export async function exportMarkdown(deps: TransferDeps, auth: SpaceAuth): Promise<Uint8Array> {
  const byId = new Map<string, NoteEntity>();
  for await (const pieces of entityPieces(deps, auth)) {
    for (const { entity, observations, start } of pieces) {
      if (start) {
        byId.set(entity.id, {
          name: entity.name,
          type: entity.type,
          metadata: entity.metadata,
          aliases: entity.aliases,
          observations: [],
          relations: [],
        });
      }
      const note = byId.get(entity.id)!;
      for (const observation of observations) {
        note.observations.push({ content: observation.content, metadata: observation.metadata });
      }
    }
  }
  for await (const page of relationPages(deps, auth, true)) {
    for (const relation of page) {
      const from = byId.get(relation.from_id);
      if (from && relation.to_name !== null) {
        from.relations.push({ type: relation.type, to: relation.to_name });
      }
    }
  }
  return zipNotes(byId.values());
}
