import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The rules of docs/architecture.md, enforced. ESLint keeps one `no-restricted-imports`
// per file (the last matching block wins), so each block below lists every
// pattern that applies to its files.

const SERVER = 'packages/server/src';

const databaseDrivers = {
  group: ['kysely', 'pg', '@electric-sql/*'],
  message: 'SQL lives only in *.repository.ts and db/ (docs/architecture.md).',
};
const repositories = {
  regex: '\\.repository\\.js$',
  message: "Adapters receive services, never a repository (call the feature's service).",
};
const plumbingReachingUp = {
  regex: '^\\.\\./(features|realtime|db|mcp)/',
  message:
    'http/ and lib/ are plumbing below the features: no feature, realtime, mcp or db/ imports.',
};
const followerReachingUp = {
  regex: '^\\.\\./(features|realtime|mcp|http)/',
  message:
    'follower/ is the library the background workers are built on: no feature, realtime, mcp or http/ imports (a worker passes what it needs).',
};
const realtimeReachingIntoFeatures = {
  regex: '^\\.\\./features/',
  message:
    'realtime/ is transport below the features: events come from lib/change-event.ts; only gateway.ts, the adapter, calls services.',
};
const FEATURE_DOOR =
  "A feature is entered only through its index.ts: import another feature's index.js, never its service, repository or routes.";
/** From inside a feature: `../<other>/<file>.js` other than `index.js`. */
const otherFeaturesInternals = {
  regex: '^\\.\\./[\\w-]+/(?!index\\.js$)',
  message: FEATURE_DOOR,
};
/**
 * From outside the features (app.ts, runtime.ts, main.ts, cli/, mcp/, realtime/gateway.ts,
 * db/, bench/): `…/features/<name>/<file>.js` other than `index.js`. A repository is
 * left to `repositories`, listed beside it, so it is refused once.
 */
const featureInternals = {
  regex: '(^|/)features/[\\w-]+/(?!index\\.js$|[\\w.-]+\\.repository\\.js$)',
  message: FEATURE_DOOR,
};
const ADAPTERS_NO_DB =
  "Adapters (routes, MCP, realtime) receive services, never the database: add what you need to the feature's service.";
const databaseModules = { regex: '(^|/)db/', message: ADAPTERS_NO_DB };
/** An error is made from its code by lib/errors.ts's constructors, which alone write `new AppError`. */
const newAppError = {
  selector: "NewExpression[callee.name='AppError']",
  message:
    'Make errors with the constructors of lib/errors.ts (the code decides the status), never `new AppError`.',
};
/** A `db` reached through whatever an adapter was given, or taken out of it. */
const noDatabaseHandle = {
  'no-restricted-syntax': [
    'error',
    { selector: "MemberExpression[property.name='db']", message: ADAPTERS_NO_DB },
    { selector: "Property[key.name='db']", message: ADAPTERS_NO_DB },
    newAppError,
  ],
};
const otherWebFeature = (climb) => ({
  regex: `^${'\\.\\./'.repeat(climb)}[\\w-]`,
  message: 'Web features do not import each other: app/ composes them (docs/architecture.md).',
});
const webFeatureAlias = {
  group: ['@/features/*'],
  message: 'Web features do not import each other: app/ composes them (docs/architecture.md).',
};

const webSharedReachingUp = {
  regex: '^(@/|(\\.\\./)+)features(/|$)',
  message:
    'lib/ and components/ are shared below the web features: no feature imports (move the shared part here).',
};
const webFeatureInternals = {
  regex: '^(@/|(\\.\\./)+)features/[\\w-]+/',
  message: "app/ imports a web feature through its index.ts ('@/features/x'), never its files.",
};

const CLIENT_ALONE =
  '@engram/client is published alone: no workspace package at run time (generate what it needs into src/generated/).';

const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const tests = ['**/*.test.ts', '**/*.test.tsx', `${SERVER}/test/**`];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/test-results/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // A file a newcomer can read in one sitting: past 600 lines, split it along what it holds.
    files: ['packages/*/src/**/*.{ts,tsx}'],
    ignores: [...tests, 'packages/web/src/test/**', `${SERVER}/db/migrations/**`],
    rules: { 'max-lines': ['error', { max: 600 }] },
  },
  {
    // The graph canvas's scene model stays small beside its renderer, labels and input.
    files: ['packages/web/src/components/graph-canvas/scene/graph-scene.ts'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
  {
    files: ['packages/shared/src/**/*.ts'],
    ignores: tests,
    rules: restrict({
      regex: '^(?!zod$|\\.{1,2}/)',
      message: 'packages/shared imports zod only: it is the contract of server and web.',
    }),
  },
  {
    // The published client depends on no workspace package: shared's tool
    // vocabulary reaches it generated (src/generated/tools.ts), not imported.
    files: ['packages/client/src/**/*.ts'],
    ignores: tests,
    rules: restrict(
      { group: ['@engram/*'], message: CLIENT_ALONE },
      { regex: '^(\\.\\./)+(shared|server|web)/', message: CLIENT_ALONE },
    ),
  },
  {
    files: [`${SERVER}/**/*.ts`],
    ignores: [...tests, `${SERVER}/db/**`],
    rules: restrict(databaseDrivers, repositories, featureInternals),
  },
  {
    files: [`${SERVER}/db/**/*.ts`, 'bench/**/*.ts'],
    ignores: tests,
    rules: restrict(repositories, featureInternals),
  },
  {
    // (Adapters' own `no-restricted-syntax` below repeats it: the last matching block wins.)
    files: [`${SERVER}/**/*.ts`],
    ignores: [...tests, `${SERVER}/lib/errors.ts`],
    rules: { 'no-restricted-syntax': ['error', newAppError] },
  },
  {
    files: [`${SERVER}/http/**/*.ts`, `${SERVER}/lib/**/*.ts`],
    ignores: tests,
    rules: restrict(databaseDrivers, repositories, plumbingReachingUp),
  },
  {
    files: [`${SERVER}/follower/**/*.ts`],
    ignores: tests,
    rules: restrict(databaseDrivers, followerReachingUp),
  },
  {
    // Its SQL: leases and cursors, over the state table a worker names.
    files: [`${SERVER}/follower/**/*.repository.ts`],
    ignores: tests,
    rules: restrict(followerReachingUp),
  },
  {
    files: [`${SERVER}/mcp/**/*.ts`, `${SERVER}/realtime/**/*.ts`],
    ignores: tests,
    rules: {
      ...restrict(databaseDrivers, repositories, databaseModules, featureInternals),
      ...noDatabaseHandle,
    },
  },
  {
    files: [`${SERVER}/realtime/**/*.ts`],
    ignores: [...tests, `${SERVER}/realtime/gateway.ts`],
    rules: restrict(databaseDrivers, repositories, databaseModules, realtimeReachingIntoFeatures),
  },
  {
    files: [`${SERVER}/features/**/*.ts`],
    ignores: tests,
    rules: restrict(databaseDrivers, otherFeaturesInternals),
  },
  {
    // The contract every feature implements: the context it is created with.
    files: [`${SERVER}/features/feature.ts`],
    rules: restrict(databaseDrivers),
  },
  {
    files: [`${SERVER}/features/**/*.repository.ts`],
    rules: restrict(otherFeaturesInternals),
  },
  {
    files: [`${SERVER}/features/**/*.routes.ts`],
    ignores: tests,
    rules: {
      ...restrict(databaseDrivers, otherFeaturesInternals, databaseModules),
      ...noDatabaseHandle,
    },
  },
  {
    files: ['packages/web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['packages/web/src/lib/**/*.{ts,tsx}', 'packages/web/src/components/**/*.{ts,tsx}'],
    rules: restrict(webSharedReachingUp),
  },
  {
    files: ['packages/web/src/app/**/*.{ts,tsx}'],
    rules: restrict(webFeatureInternals),
  },
  {
    files: ['packages/web/src/features/*/*.{ts,tsx}'],
    rules: restrict(webFeatureAlias, otherWebFeature(1)),
  },
  {
    files: ['packages/web/src/features/*/*/*.{ts,tsx}'],
    rules: restrict(webFeatureAlias, otherWebFeature(2)),
  },
);
