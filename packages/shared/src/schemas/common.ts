import { z } from 'zod';

/** PostgreSQL text and jsonb cannot hold NUL characters, so no input may carry one. */
export const hasNoNul = (value: string) => !value.includes('\u0000');
const NO_NUL = 'must not contain NUL (\\u0000) characters';

/** A string the database can store. */
export const text = (message?: string) => z.string(message).refine(hasNoNul, NO_NUL);

/** The times both databases hold and write back alike: years 1 to 9999, UTC (year 0 does not exist there). */
export const EARLIEST_TIME = new Date('0001-01-01T00:00:00Z');
export const LATEST_TIME = new Date('9999-12-31T23:59:59.999Z');

/** True for a real time both databases can store (every time a person or file gives passes here). */
export const isStorableTime = (at: Date) =>
  !Number.isNaN(at.getTime()) && at >= EARLIEST_TIME && at <= LATEST_TIME;

/** Comma-separated query values ('a,b') → ['a', 'b'], blanks dropped. */
export const commaList = text()
  .max(2000)
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

export const pagination = {
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
};

/** Ids in paths and bodies: any string; one that names no row is a 404, never a 400 or 500. */
export const idString = z.string().min(1).max(2000);

export const idParams = z.object({ id: idString });

export const okResponse = z.object({ success: z.literal(true) });

export const errorResponse = z.object({
  error: z.string(),
  code: z.string(),
  details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
