/**
 * The alias rule inside one import. In a space a name belongs to one entity,
 * as its name or as one of its aliases. The insert checks an alias against
 * the rows already stored, but the entities of one import land together, so
 * this checks them against each other first: a name beats an alias, and
 * among aliases the entity that gives one first (in file order) keeps it.
 * What is left out goes into the import's answer as `skipped`.
 */

/** Something an import left out, and why. */
export interface ImportSkip {
  /** The note it came from (a Markdown import). */
  file?: string;
  /** The entity it concerns. */
  name?: string;
  reason: string;
}

/** Skips an import's answer lists at most: the first ones. */
export const SKIPPED_LISTED_MAX = 1_000;

/** Adds `skip` to `skipped` while it holds fewer than SKIPPED_LISTED_MAX. */
export function noteSkip(skipped: ImportSkip[], skip: ImportSkip): void {
  if (skipped.length < SKIPPED_LISTED_MAX) skipped.push(skip);
}

interface Named {
  name: string;
  aliases?: string[] | undefined;
}

export class ImportNames {
  private readonly names = new Set<string>();
  /** Each alias and the first entity (by name) of the import giving it. */
  private readonly firstGiver = new Map<string, string>();

  /** Reads one entity's names; every entity goes through here, in file order, before `aliasesOf`. */
  note(entity: Named): void {
    this.names.add(entity.name);
    for (const alias of entity.aliases ?? []) {
      if (!this.firstGiver.has(alias)) this.firstGiver.set(alias, entity.name);
    }
  }

  /** The aliases `entity` keeps, adding to `skipped` each it may not have. */
  aliasesOf(entity: Named, skipped: ImportSkip[], file?: string): string[] | undefined {
    if (entity.aliases === undefined) return undefined;
    return entity.aliases.filter((alias) => {
      if (alias === entity.name) return false;
      const reason = this.names.has(alias)
        ? `the alias "${alias}" is the name of another entity in this import`
        : this.firstGiver.get(alias) !== entity.name
          ? `the alias "${alias}" is an alias of "${this.firstGiver.get(alias)}" in this import`
          : undefined;
      if (reason) noteSkip(skipped, { ...(file ? { file } : {}), name: entity.name, reason });
      return reason === undefined;
    });
  }
}

/**
 * Adds to `skipped` the aliases left out of the entities a batch created:
 * those `aliasesOf` kept back (`keptBack`), and those the insert left out
 * because another entity of the space already goes by them. An entity the
 * space already had is not created and takes no alias from the file, so
 * nothing is said of its aliases (importing a file again repeats nothing).
 */
export function aliasesLeftOut(
  given: (Named & { file?: string })[],
  created: { name: string; aliases: string[] }[],
  keptBack: ImportSkip[],
  skipped: ImportSkip[],
): void {
  const createdNames = new Set(created.map((row) => row.name));
  for (const skip of keptBack) {
    if (skip.name !== undefined && createdNames.has(skip.name)) noteSkip(skipped, skip);
  }
  // A name given twice is one entity with the first one's aliases (graph.writes `createEntities`).
  const wanted = new Map<string, Named & { file?: string }>();
  for (const entity of given) if (!wanted.has(entity.name)) wanted.set(entity.name, entity);
  for (const row of created) {
    const given = wanted.get(row.name);
    for (const alias of given?.aliases ?? []) {
      if (alias === row.name || row.aliases.includes(alias)) continue;
      noteSkip(skipped, {
        ...(given?.file ? { file: given.file } : {}),
        name: row.name,
        reason: `the alias "${alias}" is another entity's name or alias in this space`,
      });
    }
  }
}
