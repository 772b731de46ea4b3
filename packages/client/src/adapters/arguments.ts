/**
 * Checks a tool's arguments against its JSON Schema (the subset the tools
 * use), so a framework that does not (the OpenAI Agents SDK, for one) still
 * refuses what does not fit, naming the field.
 */
import type { JsonSchema } from './tool-types.js';

/** What is wrong with `value` against `schema` (the subset the tools use), or undefined. */
export function argumentProblem(
  schema: JsonSchema,
  value: unknown,
  path = 'arguments',
): string | undefined {
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return `${path} must be an object`;
      }
      const record = value as Record<string, unknown>;
      for (const key of schema.required ?? []) {
        if (record[key] === undefined || record[key] === null) return `${path}.${key} is required`;
      }
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        const item = record[key];
        if (item === undefined || item === null) continue;
        const problem = argumentProblem(property, item, `${path}.${key}`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value)) return `${path} must be an array`;
      if (schema.minItems !== undefined && value.length < schema.minItems) {
        return `${path} must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`;
      }
      if (schema.maxItems !== undefined && value.length > schema.maxItems) {
        return `${path} must have at most ${schema.maxItems} items`;
      }
      for (const [i, item] of value.entries()) {
        const problem = schema.items && argumentProblem(schema.items, item, `${path}[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'string': {
      if (typeof value !== 'string') return `${path} must be a string`;
      if (schema.minLength !== undefined && value.trim().length < schema.minLength) {
        return `${path} must not be blank`;
      }
      if (schema.maxLength !== undefined && value.length > schema.maxLength) {
        return `${path} must be at most ${schema.maxLength} characters`;
      }
      if (schema.enum && !schema.enum.includes(value)) {
        return `${path} must be one of ${schema.enum.join(', ')}`;
      }
      return undefined;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${path} must be a number`;
      if (schema.type === 'integer' && !Number.isInteger(value)) {
        return `${path} must be a whole number`;
      }
      if (schema.minimum !== undefined && value < schema.minimum) {
        return `${path} must be at least ${schema.minimum}`;
      }
      if (schema.maximum !== undefined && value > schema.maximum) {
        return `${path} must be at most ${schema.maximum}`;
      }
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${path} must be true or false`;
  }
}

/** Drops `null` fields (models often send them for optional arguments). */
export function withoutNulls(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null));
}
