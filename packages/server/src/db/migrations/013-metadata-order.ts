/**
 * Metadata keeps the order of its keys (issue 31, finding 9). `jsonb` stores
 * an object with its keys sorted (shortest first, then bytewise), so a card's
 * first three pairs and the pretty-printed JSON were not what the person
 * typed. `json` stores the text as given; the server writes it with
 * JSON.stringify of the object the client sent, so there is no whitespace and
 * no repeated key in it, and reads it back with JSON.parse, keeping the order.
 *
 * Rows stored before keep jsonb's order, the only one left of them. Their
 * text is jsonb's rendering, the same bytes the storage counters (migration
 * 008) counted, so `stored_bytes` stays right. Nothing compares, indexes or
 * queries into metadata (json has no equality operator); the conversion
 * rewrites both tables once.
 */
export const sql = /* sql */ `
  alter table entities alter column metadata drop default;
  alter table entities alter column metadata type json using metadata::json;
  alter table entities alter column metadata set default '{}';
  alter table observations alter column metadata type json using metadata::json;
`;
