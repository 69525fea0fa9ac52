// `understudy mcp`: the sandbox for a coding agent, over MCP on standard input and output
// (docs/mcp.md). Standard output carries MCP and nothing else: every line the start, the log and
// the notices write goes to standard error.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { SandboxConfig } from '../config/config.js';
import { loadConfig, type ConfigFlags } from '../config/load-config.js';
import { createSandbox, type Sandbox } from '../core/sandbox.js';
import { createSandboxServer, drain } from '../http/server.js';
import { attachedTarget } from '../mcp/attached.js';
import { inProcessTarget } from '../mcp/in-process.js';
import { adminTools, createMcpServer } from '../mcp/server.js';
import type { SandboxTarget } from '../mcp/target.js';
import { stateModel } from '../resources/model.js';
import { chooseAdmin } from './admin-default.js';
import { stateSummary } from './explain.js';
import { reloadLog } from './reload-log.js';
import { logOutput, requestLogger } from './request-log.js';
import { startupReport } from './startup-report.js';

export const MCP_HELP = `Usage: understudy mcp [options]
       understudy mcp --attach URL [--admin-token TOKEN]

Serves the sandbox to a coding agent over MCP (the Model Context Protocol) on standard input and
output: a tool per admin operation and per API operation, the document, the state model and the
README as resources (docs/mcp.md). It starts a sandbox in this process, with the options of a
normal start, and serves it over HTTP too; or, with --attach, drives one already running. Standard
output carries MCP only: the start's lines and the request log go to standard error.

Options:
  --attach URL         drive the sandbox running at URL (http://127.0.0.1:4010) instead of starting
                       one; its admin token from --admin-token, SANDBOX_ADMIN_TOKEN or the --config file
  --spec FILE          OpenAPI document to serve (env SANDBOX_SPEC; default openapi/petstore.yaml)
  --config FILE        YAML config file (env SANDBOX_CONFIG)
  --fixtures FILE      seed data definitions
  --data FILE          persist the store to FILE (env SANDBOX_DATA)
  --redis URL          share the state with every replica on this Redis (env SANDBOX_REDIS_URL)
  --port N             port the sandbox also serves HTTP on (env PORT; default 4010; 0 picks a free
                       one); when it is taken, MCP is served alone, and standard error says so
  --host HOST          address to listen on (env HOST; default 127.0.0.1)
  --seed N             seed for fixtures and generated answers (env SANDBOX_SEED; default 1)
  --admin-token TOKEN  the admin token (env SANDBOX_ADMIN_TOKEN); without one, one is made for this start
  --log-format FORMAT  pretty or json, on standard error (env SANDBOX_LOG_FORMAT)
  -h, --help           show this help
`;

/** Options that start a sandbox: an attached one was started with its own. */
const STARTING = ['spec', 'fixtures', 'data', 'redis', 'port', 'host', 'seed', 'log-format'] as const;

const say = (line: string): void => void process.stderr.write(line.endsWith('\n') ? line : `${line}\n`);

export async function mcpCommand(args: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        attach: { type: 'string' },
        ...Object.fromEntries(STARTING.map((name) => [name, { type: 'string' as const }])),
        config: { type: 'string' },
        'admin-token': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    say(`understudy mcp: ${(error as Error).message}\nRun understudy mcp --help for the options.`);
    return 2;
  }
  if (values.help === true) {
    // Asked for on a terminal, not by an MCP client: the one time standard output is not MCP.
    process.stdout.write(MCP_HELP);
    return 0;
  }
  const text = (name: string): string | undefined => {
    const value = (values as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const flags: ConfigFlags = {
    config: text('config'),
    spec: text('spec'),
    fixtures: text('fixtures'),
    data: text('data'),
    port: text('port'),
    host: text('host'),
    seed: text('seed'),
    adminToken: text('admin-token'),
    logFormat: text('log-format'),
    redis: text('redis'),
  };
  const attach = text('attach');
  const given = STARTING.filter((name) => text(name) !== undefined);
  if (attach !== undefined && given.length > 0) {
    say(`understudy mcp: --attach drives a sandbox already started: --${given.join(', --')} would start one`);
    return 2;
  }
  let running: Running;
  try {
    running = attach === undefined ? await startHere(flags) : await attachTo(attach, flags);
  } catch (error) {
    say(`understudy mcp: cannot start: ${(error as Error).message}`);
    return 1;
  }
  // One session for the process's life: a reload (the reloadSandbox tool, SIGHUP) is told to the client.
  const server = await createMcpServer(running.target, await adminTools(running.cacheDir), { followReloads: true });
  await server.connect(new StdioServerTransport());
  // The client ends the session by closing our standard input (MCP 2025-11-25 "stdio": then SIGTERM).
  return new Promise((done) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void server
        .close()
        .then(() => running.stop())
        .catch((error: unknown) => say(`understudy mcp: stopping: ${(error as Error).message}`))
        .then(() => done(0));
    };
    process.stdin.once('end', stop);
    process.stdin.once('close', stop);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

/** A sandbox the MCP server drives, and how it stops. */
interface Running {
  readonly target: SandboxTarget;
  readonly cacheDir: string | null;
  readonly stop: () => Promise<void>;
}

/** `--attach URL`: the running sandbox's API and admin API, over HTTP, checked once before MCP is served. */
async function attachTo(url: string, flags: ConfigFlags): Promise<Running> {
  if (!/^https?:\/\//i.test(url)) throw new Error(`--attach takes the sandbox's URL (http://127.0.0.1:4010), not ${JSON.stringify(url)}`);
  const config = await loadConfig(flags, process.env);
  if (config.adminToken === null) throw new Error('--attach needs the sandbox’s admin token: --admin-token or SANDBOX_ADMIN_TOKEN');
  const target = attachedTarget(url, config.adminToken);
  const api = await target.api();
  say(`understudy mcp: attached to ${api.model.title} ${api.model.version} at ${url.replace(/\/+$/, '')}${api.basePath}`);
  return { target, cacheDir: config.cacheDir, stop: () => Promise.resolve() };
}

/** A sandbox started here, as a normal start makes it, serving HTTP too when its port is free. */
async function startHere(flags: ConfigFlags): Promise<Running> {
  const chosen = chooseAdmin(await loadConfig(flags, process.env), false);
  // MCP's tools are the admin API's operations, so there is always a token. Off loopback, where a start
  // makes none (decision 0023), one is made and never printed: the admin API over HTTP stays shut.
  const made = chosen.generated;
  const config: SandboxConfig =
    chosen.config.adminToken === null ? { ...chosen.config, adminToken: randomBytes(24).toString('base64url') } : chosen.config;
  const adminToken = config.adminToken ?? '';
  const report = startupReport(false, say, say);
  const configFile = flags.config ?? process.env.SANDBOX_CONFIG;
  const sandbox = await createSandbox(config, {
    onProgress: report.onProgress,
    reloadConfig: async () => ({ ...(await loadConfig(flags, process.env)), adminToken }),
    ...(configFile === undefined ? {} : { configFile: resolve(configFile) }),
  });
  const output = logOutput(config.log.format, process.stderr.isTTY, process.env);
  const { log, logger, flush } = requestLogger(config.log.level, { ...output, fd: 2, redaction: sandbox.redaction });
  sandbox.onExchange(log);
  const reloads = reloadLog((level, message) => logger[level](message));
  sandbox.onNotice((notice) => reloads.notice(notice));
  // As a normal start: SIGHUP reads the files again (there is no watching here: the reloadSandbox tool does it too).
  process.on('SIGHUP', () => {
    reloads.started('SIGHUP');
    void sandbox.reload();
  });
  say(report.summary(sandbox.model));
  say(stateSummary(stateModel(sandbox.model)));
  const http = await listen(sandbox, config);
  const origin = http?.origin;
  say(
    `understudy: serving ${sandbox.model.title} ${sandbox.model.version} over MCP on standard input and output` +
      (origin === undefined ? '' : `, and at ${origin}${sandbox.basePath}`),
  );
  if (made !== undefined) say(`understudy: admin token ${made} (made for this start: --admin-token or SANDBOX_ADMIN_TOKEN chooses one)`);
  if (origin !== undefined && config.pages.console)
    say(`understudy: console at ${origin}/__sandbox/console${made === undefined ? '' : `#token=${made}`}`);
  return {
    target: inProcessTarget(sandbox, adminToken, '127.0.0.1', origin),
    cacheDir: config.cacheDir,
    stop: async () => {
      if (http !== undefined) await drain(http.server, 1000);
      await sandbox.close();
      reloads.flush();
      flush();
    },
  };
}

/** The HTTP server beside MCP, or undefined when its port cannot be had: MCP goes on alone. */
async function listen(sandbox: Sandbox, config: SandboxConfig): Promise<{ server: Server; origin: string } | undefined> {
  const server = createSandboxServer(sandbox);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    say(`understudy: not serving HTTP: cannot listen on ${config.host}:${config.port} (${(error as Error).message}); MCP is served alone`);
    return undefined;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { server, origin: `http://${host}:${port}` };
}
