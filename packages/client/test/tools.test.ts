/**
 * The agent tools' vocabulary is shared's (packages/shared/src/tools/agent.ts):
 * src/generated/tools.ts, written from it by scripts/generate-tools.mjs, must
 * say exactly what shared's sources say, or models would be told stale tools.
 */
import { AGENT_DEFAULT_ENTITY_TYPE, agentToolsAsJson } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import { engramToolDefinitions } from '../src/adapters/definitions.js';
import { DEFAULT_ENTITY_TYPE, engramToolVocabulary } from '../src/generated/tools.js';

const REGENERATE = 'run `npm run generate -w packages/client` and commit src/generated/tools.ts';

describe("the agent tools' vocabulary", () => {
  it('is generated from shared, as its sources say now', () => {
    expect(Object.values(engramToolVocabulary), REGENERATE).toEqual(agentToolsAsJson());
    // As text too: the order of the tools and of each schema's keys is what models see.
    expect(JSON.stringify(Object.values(engramToolVocabulary)), REGENERATE).toBe(
      JSON.stringify(agentToolsAsJson()),
    );
    expect(DEFAULT_ENTITY_TYPE, REGENERATE).toBe(AGENT_DEFAULT_ENTITY_TYPE);
  });

  it('is what every adapter offers: each definition its name, description and schema', () => {
    expect(
      engramToolDefinitions.map(({ name, description, parameters, readOnly }) => ({
        name,
        description,
        parameters,
        readOnly,
      })),
    ).toEqual(agentToolsAsJson());
  });
});
