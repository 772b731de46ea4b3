import type { AddressInfo } from 'node:net';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { announceServer } from '../db/data-lock.js';
import { writeBackupToken } from '../db/backup-token.js';
import { describeDatabase, startupBanner } from '../http/banner.js';
import { localOrigin } from '../lib/local-origin.js';
import { isLoopbackBind } from '../lib/loopback.js';
import type { Command } from './command.js';

type App = Awaited<ReturnType<typeof buildApp>>;

/** How long a graceful stop may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/** `engram serve`: the API, MCP endpoint and web app, until SIGINT or SIGTERM. */
export const serve: Command = {
  help: '  serve                     Run the API, MCP endpoint and web app',
  async run(config, _args, { stopOnSignal }) {
    const app = await buildApp({ config });
    if (!config.PUBLIC_URL && !isLoopbackBind(config.HOST)) {
      app.log.warn(
        'PUBLIC_URL is not set: browsers reach /ws/connect and /mcp only from loopback origins. Set PUBLIC_URL to the address people open.',
      );
    }
    if (config.ALLOW_PRIVATE_NETWORK_TARGETS === 'true') {
      app.log.warn(
        'ALLOW_PRIVATE_NETWORK_TARGETS is on: webhooks and OAuth client metadata may reach http and private, loopback and link-local addresses. Development and tests only.',
      );
    }
    let withdraw = () => {};
    stopOnSignal(async (signal) => {
      if (config.NODE_ENV === 'production') {
        app.log.info({ signal }, 'shutting down');
      } else {
        // The banner promised a person warnings and errors only: a plain line, and
        // the framework's own notes about closing kept quiet.
        console.log(`Stopping (${signal})…`);
        if (app.log.level === 'info') app.log.level = 'warn';
      }
      withdraw();
      // A connection or statement that never ends must not keep a stopped node alive.
      setTimeout(() => {
        app.log.error(`shutdown did not finish within ${SHUTDOWN_DEADLINE_MS / 1000} s; exiting`);
        process.exit(1);
      }, SHUTDOWN_DEADLINE_MS).unref();
      await app.close();
    });
    // The banner below says where the server is: Fastify's own "Server listening at" lines would repeat it.
    const level = app.log.level;
    app.log.level = 'warn';
    await app.listen({ port: config.PORT, host: config.HOST });
    app.log.level = level;
    // The one origin people are shown and OAuth names (PORT 0 lets the system pick the port).
    const { port } = app.server.address() as AddressInfo;
    const url = localOrigin({ HOST: config.HOST, PORT: port });
    // The embedded data folder is this process's: `engram mcp` relays to us instead,
    // and `engram backup` asks us, showing the token written here (decision 038).
    if (!config.DATABASE_URL) {
      const withdrawToken = writeBackupToken(config.DATA_DIR);
      const withdrawServer = announceServer(config.DATA_DIR, url);
      withdraw = () => {
        withdrawServer();
        withdrawToken();
      };
    }
    announce(app, config, url);
  },
};

/**
 * Where the web app, /docs and /mcp are and which database is in use: a short
 * banner for a person, one log entry in production (where logs are JSON).
 */
function announce(app: App, config: Config, localAddress: string): void {
  const url = config.PUBLIC_URL ?? localAddress;
  if (config.NODE_ENV === 'production') {
    const database = describeDatabase(config.DATABASE_URL, config.DATA_DIR);
    app.log.info({ url, database }, 'Engram is running');
  } else if (config.LOG_LEVEL !== 'silent') {
    const banner = startupBanner({
      url,
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      logLevel: config.LOG_LEVEL,
    });
    console.log(banner);
  }
}
