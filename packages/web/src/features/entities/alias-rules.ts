import { ALIAS_MAX, ALIASES_MAX } from '@engram/shared';

/**
 * The entity page's aliases (issue 59): other names the entity goes by,
 * which every by-name door resolves to it. The server decides (409 when an
 * alias is another entity's name or alias); these rules only keep the form
 * from sending what it would refuse or ignore.
 */

export type AliasCheck = { ok: true; aliases: string[] } | { ok: false; message: string };

/** The list after adding `draft` (trimmed), or why it cannot be added. */
export function addAlias(entity: { name: string; aliases: string[] }, draft: string): AliasCheck {
  const alias = draft.trim();
  if (alias === '') return { ok: false, message: 'Type a name to add' };
  if (alias.length > ALIAS_MAX) {
    return { ok: false, message: `An alias must be at most ${ALIAS_MAX} characters` };
  }
  if (alias === entity.name) return { ok: false, message: 'That is already its name' };
  if (entity.aliases.includes(alias)) return { ok: false, message: 'That is already an alias' };
  if (entity.aliases.length >= ALIASES_MAX) {
    return { ok: false, message: `An entity has at most ${ALIASES_MAX} aliases` };
  }
  return { ok: true, aliases: [...entity.aliases, alias] };
}

/** The list without `alias`. */
export function removeAlias(entity: { aliases: string[] }, alias: string): string[] {
  return entity.aliases.filter((kept) => kept !== alias);
}
