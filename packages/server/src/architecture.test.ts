import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// The dependency rules of docs/architecture.md are kept by the linter: each case plants one
// violation in a file of the folder the rule guards and expects the repository's
// ESLint configuration to reject it, and the allowed form to pass.

const root = fileURLToPath(new URL('../../../', import.meta.url));
let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return result!.messages
    .filter((message) => /^no-restricted-(imports|syntax)$/.test(message.ruleId ?? ''))
    .map((message) => message.message);
}

const cases: { rule: string; file: string; planted: string; allowed: string; says: RegExp }[] = [
  {
    rule: 'shared imports zod only',
    file: 'packages/shared/src/planted.ts',
    planted: "import { FastifyInstance } from 'fastify';\nexport type X = FastifyInstance;",
    allowed:
      "import { z } from 'zod';\nimport { PLANS } from './plans.js';\nexport const x = [z, PLANS];",
    says: /imports zod only/,
  },
  {
    rule: 'SQL only in repositories and db/',
    file: 'packages/server/src/features/graph/planted.service.ts',
    planted: "import { sql } from 'kysely';\nexport const x = sql;",
    allowed: "import * as repo from './entities.repository.js';\nexport const x = repo;",
    says: /SQL lives only/,
  },
  {
    rule: 'a feature calls another feature through its index.ts, never its repository',
    file: 'packages/server/src/features/keys/planted.service.ts',
    planted: "import * as repo from '../graph/relations.repository.js';\nexport const x = repo;",
    allowed: "import * as graph from '../graph/index.js';\nexport const x = graph;",
    says: /only through its index\.ts/,
  },
  {
    rule: 'a feature enters another feature only through its index.ts, not its services',
    file: 'packages/server/src/features/keys/planted.service.ts',
    planted:
      "import type { GraphService } from '../graph/graph.service.js';\nexport type X = GraphService;",
    allowed:
      "import type { GraphService } from '../graph/index.js';\nexport type X = GraphService;",
    says: /only through its index\.ts/,
  },
  {
    rule: 'an adapter enters a feature only through its index.ts',
    file: 'packages/server/src/planted.ts',
    planted:
      "import { BACKUP_TOKEN_HEADER } from './features/backup/backup.routes.js';\nexport const x = BACKUP_TOKEN_HEADER;",
    allowed:
      "import { BACKUP_TOKEN_HEADER } from './features/backup/index.js';\nexport const x = BACKUP_TOKEN_HEADER;",
    says: /only through its index\.ts/,
  },
  {
    rule: 'adapters never import repositories',
    file: 'packages/server/src/mcp/planted.ts',
    planted:
      "import * as repo from '../features/graph/entities.repository.js';\nexport const x = repo;",
    allowed: "import * as graph from '../features/graph/index.js';\nexport const x = graph;",
    says: /never a repository/,
  },
  {
    rule: 'an MCP tool reaches the database only through a service',
    file: 'packages/server/src/mcp/planted.ts',
    planted:
      "import type { GraphService } from '../features/graph/index.js';\nexport const x = (graph: GraphService & { db: { selectFrom(t: string): unknown } }) => graph.db.selectFrom('entities');",
    allowed:
      "import type { GraphService } from '../features/graph/index.js';\nexport const x = (graph: GraphService) => graph.readGraph;",
    says: /never the database/,
  },
  {
    rule: 'the realtime gateway takes no database out of its services',
    file: 'packages/server/src/realtime/gateway-planted.ts',
    planted:
      'export const x = (services: { db: unknown }) => {\n  const { db } = services;\n  return db;\n};',
    allowed:
      'export const x = (services: { bus: unknown }) => {\n  const { bus } = services;\n  return bus;\n};',
    says: /never the database/,
  },
  {
    rule: 'routes import no db/ module',
    file: 'packages/server/src/features/keys/planted.routes.ts',
    planted: "import type { Db } from '../../db/connection.js';\nexport type X = Db;",
    allowed: "import type { KeysService } from './keys.service.js';\nexport type X = KeysService;",
    says: /never the database/,
  },
  {
    rule: 'realtime/ carries events without reaching into a feature',
    file: 'packages/server/src/realtime/planted.ts',
    planted:
      "import type { GraphDeps } from '../features/graph/graph.service.js';\nexport type X = GraphDeps;",
    allowed:
      "import type { ChangeEvent } from '../lib/change-event.js';\nexport type X = ChangeEvent;",
    says: /transport below the features/,
  },
  {
    rule: 'http/ is plumbing below the features',
    file: 'packages/server/src/http/planted.ts',
    planted:
      "import * as usage from '../features/usage/usage.service.js';\nexport const x = usage;",
    allowed: "import { AppError } from '../lib/errors.js';\nexport const x = AppError;",
    says: /plumbing below the features/,
  },
  {
    rule: 'web features do not import each other (alias)',
    file: 'packages/web/src/features/pricing/components/planted.tsx',
    planted:
      "import { LoginForm } from '@/features/auth/components/login-form';\nexport const x = LoginForm;",
    allowed: "import { Button } from '@/components/ui/button';\nexport const x = Button;",
    says: /do not import each other/,
  },
  {
    rule: 'web features do not import each other (relative)',
    file: 'packages/web/src/features/pricing/components/planted.tsx',
    planted:
      "import { LoginForm } from '../../auth/components/login-form';\nexport const x = LoginForm;",
    allowed: "import { PlanCard } from './plan-card';\nexport const x = PlanCard;",
    says: /do not import each other/,
  },
  {
    rule: 'web lib/ does not import a feature',
    file: 'packages/web/src/lib/api/planted.ts',
    planted:
      "import { entityCountLabel } from '@/features/entities/display';\nexport const x = entityCountLabel;",
    allowed: "import { apiRequest } from '@/lib/api-client';\nexport const x = apiRequest;",
    says: /shared below the web features/,
  },
  {
    rule: 'web components/ does not import a feature',
    file: 'packages/web/src/components/planted.tsx',
    planted: "import { SearchPage } from '../features/search';\nexport const x = SearchPage;",
    allowed: "import { Button } from './ui/button';\nexport const x = Button;",
    says: /shared below the web features/,
  },
  {
    rule: 'follower/ imports no feature: a worker passes what it needs',
    file: 'packages/server/src/follower/planted.ts',
    planted:
      "import type { HistoryService } from '../features/history/index.js';\nexport type X = HistoryService;",
    allowed:
      "import type { ChangeEvent } from '../lib/change-event.js';\nexport type X = ChangeEvent;",
    says: /follower\/ is the library/,
  },
  {
    rule: 'follower/ keeps its SQL in its repository',
    file: 'packages/server/src/follower/planted.ts',
    planted: "import { sql } from 'kysely';\nexport const x = sql;",
    allowed: "import * as leases from './leases.repository.js';\nexport const x = leases;",
    says: /SQL lives only/,
  },
  {
    rule: 'an error is made from its code, by the constructors of lib/errors.ts',
    file: 'packages/server/src/features/keys/planted.service.ts',
    planted:
      "import { AppError } from '../../lib/errors.js';\nexport const x = new AppError('NOT_FOUND', 'Key not found');",
    allowed: "import { notFound } from '../../lib/errors.js';\nexport const x = notFound('Key');",
    says: /never `new AppError`/,
  },
  {
    rule: 'an adapter, too, makes errors by their constructors',
    file: 'packages/server/src/mcp/planted.ts',
    planted:
      "import { AppError } from '../lib/errors.js';\nexport const x = new AppError('FORBIDDEN', 'No');",
    allowed: "import { forbidden } from '../lib/errors.js';\nexport const x = forbidden('No');",
    says: /never `new AppError`/,
  },
  {
    rule: 'web app/ imports a feature through its index.ts only',
    file: 'packages/web/src/app/planted.tsx',
    planted:
      "import { LoginForm } from '@/features/auth/components/login-form';\nexport const x = LoginForm;",
    allowed: "import { LoginPage } from '@/features/auth';\nexport const x = LoginPage;",
    says: /through its index\.ts/,
  },
];

describe('the linter keeps the architecture', () => {
  for (const { rule, file, planted, allowed, says } of cases) {
    it(rule, async () => {
      const refused = await restrictedImports(file, planted);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatch(says);
      expect(await restrictedImports(file, allowed)).toEqual([]);
    });
  }

  it('holds React components to the rules of hooks', async () => {
    const file = `${root}packages/web/src/features/pricing/components/planted.tsx`;
    const lint = async (code: string) => {
      const [result] = await eslint.lintText(code, { filePath: file });
      return result!.messages.map((message) => message.ruleId);
    };
    const conditional =
      "import { useState } from 'react';\nexport function Planted({ on }: { on: boolean }) {\n  if (on) {\n    const [value] = useState(0);\n    return <p>{value}</p>;\n  }\n  return null;\n}\n";
    expect(await lint(conditional)).toContain('react-hooks/rules-of-hooks');
    const proper =
      "import { useState } from 'react';\nexport function Planted() {\n  const [value] = useState(0);\n  return <p>{value}</p>;\n}\n";
    expect(await lint(proper)).toEqual([]);
  });

  it('refuses a source file over 600 lines, and a graph scene over 400, but not a test', async () => {
    const lines = (count: number) =>
      Array.from({ length: count }, (_, index) => `export const x${index} = ${index};`).join('\n');
    const rules = async (file: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath: `${root}${file}` });
      return result!.messages.map((message) => message.ruleId);
    };
    expect(await rules('packages/server/src/features/keys/planted.ts', lines(601))).toContain(
      'max-lines',
    );
    expect(await rules('packages/server/src/features/keys/planted.ts', lines(600))).toEqual([]);
    expect(await rules('packages/server/src/features/keys/planted.test.ts', lines(700))).toEqual(
      [],
    );
    const scene = 'packages/web/src/components/graph-canvas/scene/graph-scene.ts';
    expect(await rules(scene, lines(401))).toContain('max-lines');
  });

  it('lets tests and db/ use SQL', async () => {
    const code = "import { sql } from 'kysely';\nexport const x = sql;";
    expect(await restrictedImports('packages/server/src/db/planted.ts', code)).toEqual([]);
    expect(await restrictedImports('packages/server/src/planted.test.ts', code)).toEqual([]);
  });
});
