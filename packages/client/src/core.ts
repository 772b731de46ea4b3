import type { Client } from 'openapi-fetch';
import { EngramError } from './errors.js';
import type { paths } from './generated/openapi.js';

/** The typed raw client of every route (openapi-fetch over the generated `paths`). */
export type Api = Client<paths>;

/**
 * The data of a successful answer, or the EngramError of a failed one
 * (openapi-fetch hands back `{ data, error, response }` without throwing).
 */
export async function unwrap<D>(
  call: Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<D> {
  const { data, error, response } = await call;
  if (!response.ok) throw EngramError.fromResponse(response, error);
  return data as D;
}
