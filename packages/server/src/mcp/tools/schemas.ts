import { mcpTools } from '@engram/shared';
import { z } from 'zod';

/**
 * The MCP tools as the server registers them: shared's table (titles,
 * descriptions, schemas and hints), each schema made to convert to JSON once.
 */
export const TOOLS = mcpTools;

const memoisedSchemas = new WeakSet<z.ZodType>();
type Options = Parameters<z.ZodType['~standard']['jsonSchema']['input']>[0];

/**
 * Makes `schema` convert to JSON Schema once. The SDK converts a tool's
 * schemas on every `tools/list`, and its output schema once per server
 * instance: for each request on the 2026 era (~0.25 ms of CPU). The converted
 * schemas are only read (listed, and checked for an object root).
 */
function convertedOnce(schema: z.ZodType): void {
  // Tools share some output schemas (graphOutput, successOutput): wrap each once.
  if (memoisedSchemas.has(schema)) return;
  memoisedSchemas.add(schema);
  const standard = schema['~standard'];
  const memoised = (convert: (options: Options) => Record<string, unknown>) => {
    const converted = new Map<string, Record<string, unknown>>();
    return (options: Options) => {
      const key = JSON.stringify(options);
      let json = converted.get(key);
      if (!json) converted.set(key, (json = convert(options)));
      return json;
    };
  };
  // Not enumerable, as zod keeps it: nothing that walks a schema's keys sees it.
  Object.defineProperty(schema, '~standard', {
    configurable: true,
    writable: true,
    enumerable: false,
    value: {
      ...standard,
      jsonSchema: {
        input: memoised(standard.jsonSchema.input),
        output: memoised(standard.jsonSchema.output),
      },
    },
  });
}

for (const tool of Object.values(mcpTools)) {
  convertedOnce(tool.inputSchema);
  convertedOnce(tool.outputSchema);
}
