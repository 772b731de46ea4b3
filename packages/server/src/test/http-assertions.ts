import { ERROR_CODES } from '@engram/shared';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** The one error body every non-2xx response carries (docs/product.md, Calls). */
export interface ErrorBodyShape {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Why `response` is not a well-formed error response, or null when it is:
 * JSON content type, an object with a non-empty string `error`, a `code` from
 * the shared catalogue, optional `details` of `{field, message}` and nothing else.
 */
export function errorShapeProblem(response: LightMyRequestResponse): string | null {
  const contentType = String(response.headers['content-type'] ?? '');
  if (!contentType.startsWith('application/json')) return `content-type is "${contentType}"`;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return `body is not JSON: ${response.body.slice(0, 200)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return `body is not an object: ${response.body.slice(0, 200)}`;
  }
  const record = body as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => !['error', 'code', 'details'].includes(key));
  if (extra.length > 0)
    return `unexpected keys ${extra.join(', ')} in ${response.body.slice(0, 200)}`;
  if (typeof record.error !== 'string' || record.error.length === 0) {
    return `error is not a non-empty string: ${response.body.slice(0, 200)}`;
  }
  if (
    typeof record.code !== 'string' ||
    !(ERROR_CODES as readonly string[]).includes(record.code)
  ) {
    return `code is not one of the catalogue: ${response.body.slice(0, 200)}`;
  }
  if (record.details !== undefined) {
    if (!Array.isArray(record.details)) return `details is not an array`;
    for (const detail of record.details as unknown[]) {
      const d = detail as Record<string, unknown> | null;
      if (!d || typeof d.field !== 'string' || typeof d.message !== 'string') {
        return `malformed detail ${JSON.stringify(detail)}`;
      }
    }
  }
  return null;
}

/** Asserts the status, the error shape and (when given) the code; returns the body. */
export function expectError(
  response: LightMyRequestResponse,
  status: number,
  code?: string,
): ErrorBodyShape {
  expect(response.statusCode, response.body).toBe(status);
  expect(errorShapeProblem(response)).toBeNull();
  const body = response.json<ErrorBodyShape>();
  if (code) expect(body.code).toBe(code);
  return body;
}

/** A 400 VALIDATION_ERROR whose details name exactly `fields` (order-insensitive). */
export function expectValidationError(response: LightMyRequestResponse, fields: string[]) {
  const body = expectError(response, 400, 'VALIDATION_ERROR');
  expect(body.details, response.body).toBeDefined();
  expect([...new Set(body.details!.map((detail) => detail.field))].sort()).toEqual(
    [...fields].sort(),
  );
  return body;
}

/** A 404 NOT_FOUND error body. */
export function expectNotFound(response: LightMyRequestResponse) {
  return expectError(response, 404, 'NOT_FOUND');
}

/** An ISO-8601 timestamp exactly as Date#toISOString writes it. */
export function expectIsoDate(value: unknown) {
  expect(typeof value).toBe('string');
  expect(new Date(value as string).toISOString()).toBe(value);
}

/**
 * Ids that are not uuids of any row: each must give 404 on an id route.
 * (Every entry is at most 200 characters; longer ids are tested on their own.)
 */
export const MALFORMED_IDS = [
  'not-a-uuid',
  '123',
  '0',
  'null',
  "' OR '1'='1",
  '1; DROP TABLE entities; --',
  'ünïcødé-😀',
  '00000000-0000-0000-0000-00000000000g',
  '8d8ac024-10cb-49d5-a44e-368df238dc6',
  '8d8ac02410cb49d5a44e368df238dc63',
  '{8d8ac024-10cb-49d5-a44e-368df238dc63}',
  'a'.repeat(200),
];

/** Deterministic PRNG (mulberry32): the same seed always gives the same fuzz batch. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (max: number) => Math.floor(next() * max),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
