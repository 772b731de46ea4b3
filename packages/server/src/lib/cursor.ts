import type { z } from 'zod';
import { badRequest } from './errors.js';

/**
 * Opaque page cursors: a list's position (JSON) as base64url. Clients pass
 * back what they were given; anything else is refused naming the field, so
 * a forged or damaged cursor is a 400, never a 500 or a silent restart.
 */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * A page of `rows` read with one row past `limit` (which says more follow):
 * the first `limit`, and the cursor after the last of them, null at the end.
 */
export function pageOf<Row>(
  rows: Row[],
  limit: number,
  positionOf: (last: Row) => unknown,
): { page: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(positionOf(last)) : null };
}

/** The position `cursor` holds, checked against `shape`; 400 naming `field` when it holds none. */
export function decodeCursor<T>(cursor: string, shape: z.ZodType<T>, field = 'cursor'): T {
  const refused = () =>
    badRequest(
      field,
      `${field} is not one this list gave; leave it out to start from the beginning`,
    );
  // Node's decoder skips characters outside the alphabet: check the text first.
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(cursor)) throw refused();
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  const parsed = shape.safeParse(position);
  if (!parsed.success) throw refused();
  return parsed.data;
}
