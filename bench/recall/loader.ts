/**
 * Stores memories through the real API. The evaluation set goes through REST
 * as a memory would accumulate: every entity created, then each session's
 * turns added to its speakers in date order (so observation dates follow the
 * sessions), then the factual observations and the relations. The latency
 * mode's filler goes through MCP `create_entities` in large batches (a call
 * takes up to 100,000 entities and 32 MB; REST takes one entity per call).
 */
import { performance } from 'node:perf_hooks';
import { storedText, type DatesMode, type EvalSet, type Memory } from './data.js';
import type { Api } from './server.js';
import { syntheticEntities } from './synthetic.js';

export async function storeEvalSet(api: Api, set: EvalSet, dates: DatesMode): Promise<number> {
  const started = performance.now();
  const ids = new Map<string, string>();
  for (const entity of set.entities) {
    const created = await api.request<{ id: string }>(
      'POST',
      '/api/entities',
      { name: entity.name, type: entity.type },
      201,
    );
    ids.set(entity.name, created.id);
  }
  // Consecutive memories of one entity (a speaker's turns in one session, an
  // entity's facts) go in one call, in the set's order.
  let run: Memory[] = [];
  const flush = async () => {
    if (run.length === 0) return;
    const entityName = run[0]!.entityName;
    // A dated fact (dated.json) goes with when it held.
    const texts = run.map((memory) =>
      memory.validFrom
        ? {
            content: storedText(memory, dates),
            validFrom: memory.validFrom,
            ...(memory.validTo ? { validTo: memory.validTo } : {}),
          }
        : storedText(memory, dates),
    );
    run = [];
    const answer = await api.request<{ added: unknown[] }>(
      'POST',
      `/api/entities/${ids.get(entityName)}/observations`,
      { observations: texts },
      201,
    );
    if (answer.added.length !== texts.length) {
      throw new Error(
        `${entityName}: ${texts.length} observations sent, ${answer.added.length} stored`,
      );
    }
  };
  const bySession = sessionOrder(set.memories);
  for (const memory of bySession) {
    const last = run[run.length - 1];
    if (last && (last.entityName !== memory.entityName || last.date !== memory.date)) await flush();
    run.push(memory);
  }
  await flush();
  for (const relation of set.relations) {
    await api.request(
      'POST',
      '/api/relations',
      {
        fromEntityId: ids.get(relation.from),
        toEntityId: ids.get(relation.to),
        type: relation.type,
      },
      201,
    );
  }
  return (performance.now() - started) / 1000;
}

/** A session's turns grouped by speaker, sessions kept in order (the set lists them interleaved). */
function sessionOrder(memories: Memory[]): Memory[] {
  const groups = new Map<string, Memory[]>();
  for (const memory of memories) {
    const session = memory.date ? `${memory.ref.split('/')[0]} ${memory.date}` : memory.ref;
    const key = `${session}\n${memory.entityName}`;
    const group = groups.get(key) ?? [];
    group.push(memory);
    groups.set(key, group);
  }
  return [...groups.values()].flat();
}

export interface FillReport {
  observations: number;
  entities: number;
  seconds: number;
}

/** `count` synthetic observations through MCP create_entities, `batch` observations per call. */
export async function loadSynthetic(
  api: Api,
  count: number,
  avoidNames: Set<string>,
  options: { perEntity: number; batch: number; progress?: (line: string) => void },
): Promise<FillReport> {
  const started = performance.now();
  let entities = 0;
  let observations = 0;
  let pending: { name: string; entityType: string; observations: string[] }[] = [];
  let pendingObservations = 0;
  const send = async () => {
    if (pending.length === 0) return;
    const answer = await api.tool('create_entities', { entities: pending });
    const created = (answer.entities as unknown[] | undefined)?.length ?? 0;
    if (created !== pending.length) {
      throw new Error(`create_entities: ${pending.length} sent, ${created} created`);
    }
    entities += pending.length;
    observations += pendingObservations;
    pending = [];
    pendingObservations = 0;
    const seconds = (performance.now() - started) / 1000;
    options.progress?.(
      `  ${observations.toLocaleString('en')} observations in ${seconds.toFixed(0)} s ` +
        `(${(observations / seconds).toFixed(0)}/s)`,
    );
  };
  for (const entity of syntheticEntities(count, options.perEntity, avoidNames)) {
    pending.push(entity);
    pendingObservations += entity.observations.length;
    if (pendingObservations >= options.batch) await send();
  }
  await send();
  return { observations, entities, seconds: (performance.now() - started) / 1000 };
}
