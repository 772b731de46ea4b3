export * from './errors.js';
export * from './entity-types.js';
export * from './plans.js';
export * from './schemas/common.js';
export * from './schemas/auth.js';
export * from './schemas/graph.js';
export * from './schemas/keys.js';
export * from './schemas/realtime.js';
