import { KNOWN_ENTITY_TYPES, type Observation } from '@engram/shared';

export interface EntityFormValues {
  name: string;
  /** The type chosen from the list; '' while nothing is chosen. */
  type: string;
  /** The free-text type once 'Custom Type...' is chosen (docs/product.md, Forms); null while the list is used. */
  customType: string | null;
  /** Metadata as JSON text; blank means none. */
  metadata: string;
  observations: string[];
}

export type EntityFormField = 'name' | 'type' | 'metadata';

export interface EntityPayload {
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  observations: string[];
}

/** A broken rule, at the field it concerns. */
export interface EntityFormError {
  field: EntityFormField;
  message: string;
}

export type EntityFormCheck =
  | { ok: true; input: EntityPayload }
  /** Every broken rule, one per field, in the order of the fields. */
  | { ok: false; errors: EntityFormError[] };

/** The form of a new entity: one empty observation box (docs/product.md, Forms). */
export function emptyEntityForm(): EntityFormValues {
  return { name: '', type: '', customType: null, metadata: '', observations: [''] };
}

/** The form holding an entity being edited; metadata pretty-printed, one empty box when none. */
export function entityFormOf(entity: {
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  observations: { content: string }[];
}): EntityFormValues {
  return {
    name: entity.name,
    type: entity.type,
    customType: null,
    metadata: Object.keys(entity.metadata).length ? JSON.stringify(entity.metadata, null, 2) : '',
    observations: entity.observations.length
      ? entity.observations.map((observation) => observation.content)
      : [''],
  };
}

/** Blank observations dropped, the rest trimmed, repeats once (docs/product.md, Forms). */
export function cleanObservationTexts(texts: string[]): string[] {
  const kept: string[] = [];
  for (const text of texts) {
    const content = text.trim();
    if (content && !kept.includes(content)) kept.push(content);
  }
  return kept;
}

/**
 * In the order of docs/product.md (Forms): a non-blank name ('Name is required'), a type ('Type is
 * required'), metadata that is valid JSON when given ('Invalid JSON format').
 * Every broken rule (so one submit shows every mistake), or the payload to
 * send: name and type trimmed, blank observations dropped.
 */
export function checkEntityForm(values: EntityFormValues): EntityFormCheck {
  const errors: EntityFormError[] = [];
  const name = values.name.trim();
  if (!name) errors.push({ field: 'name', message: 'Name is required' });

  const type = (values.customType ?? values.type).trim();
  if (!type) errors.push({ field: 'type', message: 'Type is required' });

  const metadata = parseMetadata(values.metadata);
  if (typeof metadata === 'string') errors.push({ field: 'metadata', message: metadata });

  if (errors.length > 0 || typeof metadata === 'string') return { ok: false, errors };
  return {
    ok: true,
    input: { name, type, metadata, observations: cleanObservationTexts(values.observations) },
  };
}

/** Metadata text as an object (blank: none), or what is wrong with it. */
function parseMetadata(text: string): Record<string, unknown> | string {
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'Invalid JSON format';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return 'Metadata must be a JSON object';
  }
  return parsed as Record<string, unknown>;
}

/** The known types of the shared catalog a person would give an entity (not 'observation'). */
const KNOWN_TYPES = Object.keys(KNOWN_ENTITY_TYPES).filter((type) => type !== 'observation');

/**
 * The types the form offers: the account's own (most used first; those the
 * server found for `prefix`), then the known types it does not use yet, and
 * the entity's current type if missing — the last two only when they start
 * with `prefix`, in any case, as the server's search does.
 */
export function typeChoices(accountTypes: string[], current?: string, prefix = ''): string[] {
  const wanted = prefix.toLowerCase();
  const matches = (type: string) => type.toLowerCase().startsWith(wanted);
  const choices = new Set(accountTypes);
  for (const type of [...KNOWN_TYPES, ...(current ? [current] : [])]) {
    if (type && matches(type)) choices.add(type);
  }
  return [...choices];
}

/**
 * What an edit sends as the entity's observation list, or undefined to leave
 * the list alone. The server keeps every text it is sent again with its id
 * and date, so only what the person changed is removed or added. Texts that
 * appeared meanwhile (an agent added one while the dialog was open) are in
 * `latest` but were never shown: they are kept, after the person's list.
 */
export function observationsToSend(
  shown: Pick<Observation, 'id' | 'content'>[],
  edited: string[],
  latest: Pick<Observation, 'id' | 'content'>[] = shown,
): string[] | undefined {
  const wanted = cleanObservationTexts(edited);
  const before = shown.map((observation) => observation.content);
  const unchanged =
    wanted.length === before.length && wanted.every((text, index) => text === before[index]);
  if (unchanged) return undefined;
  const shownIds = new Set(shown.map((observation) => observation.id));
  const arrived = latest
    .filter((observation) => !shownIds.has(observation.id) && !wanted.includes(observation.content))
    .map((observation) => observation.content);
  return [...wanted, ...arrived];
}
