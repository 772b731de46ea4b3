import { isStorableTime } from '@engram/shared';
import { z } from 'zod';
import { badRequest, invalidInput } from '../../lib/errors.js';

/**
 * A mem0 export: what its `get_all` answers (`{ results: [...] }`), its
 * export's `{ memories: [...] }`, or a bare array, of
 * `{ id, memory, user_id?, agent_id?, metadata?, created_at? }`.
 *
 * Each memory becomes an observation (its text `memory`, its `validFrom` the
 * memory's `created_at`, its metadata mem0's `metadata` with `mem0_id`) of
 * the entity of its user (`user:<id>`, type `user`), else of its agent
 * (`agent:<id>`, type `agent`), else of one entity `mem0 import` (type
 * `source`).
 */

/** A time mem0 wrote, as epoch ms (with an offset; a time without one read as UTC); NaN when unreadable. */
function timeOf(text: string): number {
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
}

const memory = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  memory: z.string().trim().min(1, 'memory must not be blank'),
  user_id: z.union([z.string(), z.number()]).nullish(),
  agent_id: z.union([z.string(), z.number()]).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  // An unreadable time leaves the memory undated; a readable one must fit.
  created_at: z
    .string()
    .nullish()
    .refine(
      (text) => {
        const time = text ? timeOf(text) : NaN;
        return Number.isNaN(time) || isStorableTime(new Date(time));
      },
      { message: 'created_at must be a time from year 1 to 9999 (UTC)' },
    ),
});
type Memory = z.infer<typeof memory>;

export interface Mem0Entity {
  name: string;
  type: string;
  observations: { content: string; metadata?: Record<string, unknown>; validFrom?: string }[];
}

/** The memories of any of the three shapes, or 400 naming the field that is wrong. */
function memoriesOf(value: unknown): { list: unknown[]; field: string } {
  if (Array.isArray(value)) return { list: value, field: '' };
  if (typeof value === 'object' && value !== null) {
    for (const key of ['results', 'memories'] as const) {
      const list = (value as Record<string, unknown>)[key];
      if (Array.isArray(list)) return { list, field: `${key}.` };
    }
  }
  throw invalidInput(
    'mem0 export: expected { "results": [...] }, { "memories": [...] } or an array of memories',
  );
}

/** A time mem0 wrote, as ISO; undefined when unreadable. */
function isoOf(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  const time = timeOf(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function ownerOf(item: Memory): { name: string; type: string } {
  if (item.user_id !== undefined && item.user_id !== null && String(item.user_id).trim()) {
    return { name: `user:${String(item.user_id).trim()}`, type: 'user' };
  }
  if (item.agent_id !== undefined && item.agent_id !== null && String(item.agent_id).trim()) {
    return { name: `agent:${String(item.agent_id).trim()}`, type: 'agent' };
  }
  return { name: 'mem0 import', type: 'source' };
}

/** The entities a mem0 export makes, in the order their first memory comes. */
export function mem0Entities(value: unknown): Mem0Entity[] {
  const { list, field } = memoriesOf(value);
  const byName = new Map<string, Mem0Entity>();
  list.forEach((raw, index) => {
    const parsed = memory.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = [`${field}${index}`, ...issue.path].join('.');
      throw badRequest(path, `mem0 export (${path}): ${issue.message}`);
    }
    const item = parsed.data;
    const owner = ownerOf(item);
    let entity = byName.get(owner.name);
    if (!entity) byName.set(owner.name, (entity = { ...owner, observations: [] }));
    const metadata: Record<string, unknown> = { ...(item.metadata ?? {}) };
    if (item.id !== undefined) metadata['mem0_id'] = String(item.id);
    const validFrom = isoOf(item.created_at);
    entity.observations.push({
      content: item.memory,
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...(validFrom ? { validFrom } : {}),
    });
  });
  return [...byName.values()];
}
