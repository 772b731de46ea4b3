import {
  typeLabel,
  type EntityAuthors,
  type EntityVersion,
  type HistoryActor,
  type HistoryChange,
  type ObservationVersion,
  type RelationVersion,
} from '@engram/shared';
import { formatDate, pluralize } from '@/lib/format';

export { timeAgo } from '@/lib/format';

/*
 * The rules of the History tab (docs/history.md) as plain functions: what a
 * change did in words, who made it, when, and the before → after of what it
 * touched. Components only lay these out.
 */

/** When a fact held in the world ('valid Jan 2024 → Mar 2025'); null when the writer said neither end. */
export interface Validity {
  validFrom?: string | null;
  validTo?: string | null;
}

const month = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

const day = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
});

/**
 * A validity end as written: a month ('2024-01') as 'Jan 2024', a day (or
 * its UTC midnight) as 'Jan 5, 2024', not moved into the reader's time zone;
 * any other time as its local date.
 */
function validityEnd(iso: string): string {
  if (/^\d{4}-\d{2}$/.test(iso)) return month.format(new Date(`${iso}-01T00:00:00Z`));
  // A day, or a day stored as its UTC midnight: the day written, wherever the reader is.
  if (/^\d{4}-\d{2}-\d{2}(T00:00(:00(\.0+)?)?(Z|\+00:00))?$/.test(iso)) {
    return day.format(new Date(`${iso.slice(0, 10)}T00:00:00Z`));
  }
  return formatDate(iso);
}

/** 'valid Jan 5, 2024 → Mar 1, 2025', 'valid from …', 'valid until …'; null when neither end is given. */
export function validityLabel({ validFrom, validTo }: Validity): string | null {
  if (!validFrom && !validTo) return null;
  if (validFrom && validTo) return `valid ${validityEnd(validFrom)} → ${validityEnd(validTo)}`;
  if (validFrom) return `valid from ${validityEnd(validFrom)}`;
  return `valid until ${validityEnd(validTo!)}`;
}

/**
 * Who made a change: the person, and the credential when it was not their
 * own session ('Ada Lovelace via key ‘ci-agent’', 'Ada Lovelace via Claude');
 * without the person (an older change, or someone gone), the credential's
 * name, else what kind of caller it was.
 */
export function actorLabel(actor: HistoryActor | null): string {
  if (actor === null) return 'Engram';
  const person = actor.user?.name ?? null;
  switch (actor.kind) {
    case 'api_key': {
      if (!person) return actor.name ?? 'API key';
      return actor.name ? `${person} via key ‘${actor.name}’` : `${person} via an API key`;
    }
    case 'oauth': {
      if (!person) return actor.name ?? 'Connected app';
      return `${person} via ${actor.name ?? 'a connected app'}`;
    }
    default:
      return person ?? actor.name ?? 'Person';
  }
}

/** One line of who made an entity what it is: 'Created by Ada Lovelace', and when. */
export interface AuthorLine {
  kind: 'created' | 'changed';
  text: string;
  at: string;
}

/**
 * The entity page's 'Created by …' and 'Last changed by …' (GET
 * /api/entities/{id}/authors), each only when history still says who and when.
 */
export function authorLines(authors: EntityAuthors): AuthorLine[] {
  const lines: AuthorLine[] = [];
  if (authors.createdBy && authors.createdAt) {
    lines.push({
      kind: 'created',
      text: `Created by ${authors.createdBy.name}`,
      at: authors.createdAt,
    });
  }
  if (authors.updatedBy && authors.updatedAt) {
    lines.push({
      kind: 'changed',
      text: `Last changed by ${authors.updatedBy.name}`,
      at: authors.updatedAt,
    });
  }
  return lines;
}

const entityOf = (version: HistoryChange['before']): EntityVersion | null =>
  version?.kind === 'entity' ? version : null;

/** An entity version's aliases (none before it existed). */
export function aliasesOf(version: EntityVersion | null): string[] {
  return version?.aliases ?? [];
}

/** Aliases `after` has and `before` had not, and the other way round. */
function aliasDiff(before: EntityVersion | null, after: EntityVersion | null) {
  const had = aliasesOf(before);
  const has = aliasesOf(after);
  return {
    added: has.filter((alias) => !had.includes(alias)),
    removed: had.filter((alias) => !has.includes(alias)),
  };
}

/** 'A', 'A and B', 'A, B and C'. */
function listOf(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
const relationOf = (version: HistoryChange['before']): RelationVersion | null =>
  version?.kind === 'relation' ? version : null;

/** One line of a change's compact diff. */
export type DiffLine =
  | { kind: 'field'; label: string; before: string; after: string }
  | { kind: 'added' | 'removed'; text: string; note: string | null };

export interface ObservationDiff {
  added: ObservationVersion[];
  removed: ObservationVersion[];
  /** Same id on both sides, something about it changed. */
  changed: { before: ObservationVersion; after: ObservationVersion }[];
}

/** Observations in `after` only were added, in `before` only removed (docs/history.md). */
export function observationDiff(
  before: EntityVersion | null,
  after: EntityVersion | null,
): ObservationDiff {
  const beforeById = new Map((before?.observations ?? []).map((item) => [item.id, item]));
  const afterById = new Map((after?.observations ?? []).map((item) => [item.id, item]));
  const diff: ObservationDiff = { added: [], removed: [], changed: [] };
  for (const item of afterById.values()) {
    const old = beforeById.get(item.id);
    if (!old) diff.added.push(item);
    else if (JSON.stringify(old) !== JSON.stringify(item))
      diff.changed.push({ before: old, after: item });
  }
  for (const item of beforeById.values()) if (!afterById.has(item.id)) diff.removed.push(item);
  return diff;
}

/** A metadata value in one short line. */
function showValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? '' : text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Keys whose value differs, appeared or went. */
function metadataLines(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): DiffLine[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.flatMap((key): DiffLine[] => {
    const had = Object.hasOwn(before, key);
    const has = Object.hasOwn(after, key);
    if (had && has) {
      if (JSON.stringify(before[key]) === JSON.stringify(after[key])) return [];
      return [
        { kind: 'field', label: key, before: showValue(before[key]), after: showValue(after[key]) },
      ];
    }
    return [
      {
        kind: has ? 'added' : 'removed',
        text: `${key}: ${showValue(has ? after[key] : before[key])}`,
        note: 'metadata',
      },
    ];
  });
}

function observationLine(kind: 'added' | 'removed', item: ObservationVersion): DiffLine {
  return { kind, text: item.content, note: validityLabel(item) };
}

/** The ends and kind of a relation: 'Alice → Bob · Knows'. */
export function relationSummary(relation: RelationVersion): string {
  const from = relation.fromEntityName ?? 'Unknown';
  const to = relation.toEntityName ?? 'Unknown';
  return `${from} → ${to} · ${typeLabel(relation.relationType)}`;
}

/** The compact before → after of one change: fields changed, observations and relations added or removed. */
export function diffLines(change: HistoryChange): DiffLine[] {
  const beforeRelation = relationOf(change.before);
  const afterRelation = relationOf(change.after);
  if (beforeRelation || afterRelation) {
    if (!beforeRelation)
      return [
        {
          kind: 'added',
          text: relationSummary(afterRelation!),
          note: validityLabel(afterRelation!),
        },
      ];
    if (!afterRelation)
      return [
        {
          kind: 'removed',
          text: relationSummary(beforeRelation),
          note: validityLabel(beforeRelation),
        },
      ];
    const lines: DiffLine[] = [];
    const field = (label: string, before: string, after: string) => {
      if (before !== after) lines.push({ kind: 'field', label, before, after });
    };
    field(
      'From',
      beforeRelation.fromEntityName ?? beforeRelation.fromEntityId,
      afterRelation.fromEntityName ?? afterRelation.fromEntityId,
    );
    field(
      'To',
      beforeRelation.toEntityName ?? beforeRelation.toEntityId,
      afterRelation.toEntityName ?? afterRelation.toEntityId,
    );
    field('Type', typeLabel(beforeRelation.relationType), typeLabel(afterRelation.relationType));
    field(
      'Valid',
      validityLabel(beforeRelation) ?? 'not said',
      validityLabel(afterRelation) ?? 'not said',
    );
    return lines;
  }

  const before = entityOf(change.before);
  const after = entityOf(change.after);
  const lines: DiffLine[] = [];
  if (before && after) {
    if (before.name !== after.name)
      lines.push({ kind: 'field', label: 'Name', before: before.name, after: after.name });
    if (before.type !== after.type) {
      lines.push({ kind: 'field', label: 'Type', before: before.type, after: after.type });
    }
    lines.push(...metadataLines(before.metadata, after.metadata));
    const aliases = aliasDiff(before, after);
    for (const alias of aliases.added) lines.push({ kind: 'added', text: alias, note: 'alias' });
    for (const alias of aliases.removed) {
      lines.push({ kind: 'removed', text: alias, note: 'alias' });
    }
  } else if (after && Object.keys(after.metadata).length > 0) {
    lines.push(...metadataLines({}, after.metadata));
  }
  const observations = observationDiff(before, after);
  // A deleted entity's observations went with it; listing them all says little more than 'Deleted'.
  if (after || change.type !== 'entity_deleted') {
    for (const { before: old, after: now } of observations.changed) {
      lines.push(observationLine('removed', old), observationLine('added', now));
    }
    lines.push(...observations.added.map((item) => observationLine('added', item)));
    lines.push(...observations.removed.map((item) => observationLine('removed', item)));
  }
  return lines;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * What a change did, in words, as seen from the entity whose history this is
 * (`entityId`; omit for a space-wide list): 'Created', 'Renamed Alice →
 * Alicia', 'Added 2 observations', 'Related to Bob (Knows)', 'Relation removed'.
 */
export function describeChange(change: HistoryChange, entityId?: string): string {
  const relation = relationOf(change.after) ?? relationOf(change.before);
  if (relation) {
    const outgoing = entityId === undefined || relation.fromEntityId === entityId;
    const other = (outgoing ? relation.toEntityName : relation.fromEntityName) ?? 'an entity';
    const kind = typeLabel(relation.relationType);
    const link = outgoing ? `to ${other}` : `from ${other}`;
    if (change.type === 'relation_created') return `Related ${link} (${kind})`;
    if (change.type === 'relation_deleted') return `Relation ${link} removed (${kind})`;
    return `Relation ${link} changed (${kind})`;
  }

  const before = entityOf(change.before);
  const after = entityOf(change.after);
  const observations = observationDiff(before, after);
  if (change.type === 'entity_merged') return describeMerge(before, after, entityId);
  if (change.type === 'entity_created' || (!before && after)) {
    return observations.added.length > 0
      ? `Created with ${pluralize(observations.added.length, 'observation')}`
      : 'Created';
  }
  if (change.type === 'entity_deleted' || (before && !after)) return 'Deleted';

  const parts: string[] = [];
  if (before && after && before.name !== after.name)
    parts.push(`renamed ${before.name} → ${after.name}`);
  if (before && after && before.type !== after.type) {
    parts.push(`type ${typeLabel(before.type)} → ${typeLabel(after.type)}`);
  }
  if (before && after && JSON.stringify(before.metadata) !== JSON.stringify(after.metadata)) {
    parts.push('metadata changed');
  }
  const aliases = aliasDiff(before, after);
  if (aliases.added.length > 0) {
    parts.push(`added ${aliasWord(aliases.added)} ${listOf(aliases.added)}`);
  }
  if (aliases.removed.length > 0) {
    parts.push(`removed ${aliasWord(aliases.removed)} ${listOf(aliases.removed)}`);
  }
  const count = (n: number) => (n === 1 ? 'observation' : pluralize(n, 'observation'));
  if (observations.added.length > 0) parts.push(`added ${count(observations.added.length)}`);
  if (observations.removed.length > 0) parts.push(`removed ${count(observations.removed.length)}`);
  if (observations.changed.length > 0) parts.push(`edited ${count(observations.changed.length)}`);
  return parts.length > 0 ? capitalise(parts.join(', ')) : 'Updated';
}

const aliasWord = (aliases: string[]) => (aliases.length === 1 ? 'alias' : 'aliases');

/**
 * A merge as its target's history shows it: 'Merged A. Lovelace' (the
 * sources' names, which became the target's aliases), and a rename when the
 * merge gave the target a new name; 'Merged into Ada Lovelace' from another
 * entity's side, 'Merged A. Lovelace into Ada Lovelace' in a space-wide list.
 */
function describeMerge(
  before: EntityVersion | null,
  after: EntityVersion | null,
  entityId: string | undefined,
): string {
  const target = after ?? before;
  if (entityId !== undefined && target && target.id !== entityId) {
    return `Merged into ${target.name}`;
  }
  // A merge that renames its target keeps the old name as an alias: that one was no source.
  const sources = aliasDiff(before, after).added.filter((alias) => alias !== before?.name);
  let text = sources.length > 0 ? `Merged ${listOf(sources)}` : 'Merged';
  if (entityId === undefined && target) text += ` into ${target.name}`;
  if (before && after && before.name !== after.name) {
    text += `, renamed ${before.name} → ${after.name}`;
  }
  return text;
}

/** How many of `changes` a call made: what a revert of one of them undoes, as far as this list shows. */
export function changesInCall(changes: readonly HistoryChange[], callSeq: number): number {
  return changes.filter((change) => change.callSeq === callSeq).length;
}
