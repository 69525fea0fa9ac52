// The command line. The `understudy` bin (bin.cts) runs it from its bundle; it also runs as it is.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type ConfigFlags } from '../config/load-config.js';
import { createSandbox } from '../core/sandbox.js';
import { createSandboxServer, drain } from '../http/server.js';
import { safeUrl } from '../replicas/safe-url.js';
import { logOutput, requestLogger } from './request-log.js';
import { startupReport } from './startup-report.js';
import { explain, stateSummary } from './explain.js';
import { stateModel } from '../resources/model.js';
import { DEFAULT_CONFIG } from '../config/defaults.js';
import type { FileWatch } from './watch-files.js';
import { reloadLog } from './reload-log.js';
import { adminLines, chooseAdmin } from './admin-default.js';
import { missingReferences } from '../openapi/load-document.js';

const HELP = `understudy: a spec-driven sandbox server

Usage: understudy [options]
       understudy explain [--spec FILE] [--json]   what the sandbox keeps, and what it answers from the document
       understudy receive [--port N] [--fail N]    a webhook receiver to try deliveries on (receive --help)
       understudy mcp [options]                    the sandbox for a coding agent, over MCP (understudy mcp --help)

Serves an OpenAPI document like its production deployment: validates every request, authenticates
API keys bound to plans, enforces each plan's rate limits, and answers statefully from a seeded
in-memory store. With no options it serves the Pet Store document with the demo keys
demo-free, demo-pro, demo-business and demo-enterprise.

Options:
  --spec FILE          OpenAPI 3.0/3.1/3.2 or Swagger 2.0 document (env SANDBOX_SPEC; default openapi/petstore.yaml)
  --config FILE        YAML config file (env SANDBOX_CONFIG); its fields: docs/configuration.md
  --fixtures FILE      seed data definitions (default fixtures/petstore.yaml for the Pet Store)
  --data FILE          persist the store to FILE and its log FILE.log (env SANDBOX_DATA; default: memory only)
  --snapshot FILE      import a workspace snapshot and restore it before answering (env SANDBOX_SNAPSHOT)
  --redis URL          share the state with every replica on this Redis (env SANDBOX_REDIS_URL; redis://host:port)
  --port N             port to listen on (env PORT; default 4010; 0 picks a free one)
  --host HOST          address to listen on (env HOST; default 127.0.0.1)
  --seed N             seed for fixtures and generated answers (env SANDBOX_SEED; default 1)
  --admin-token TOKEN  enables the admin API under /__sandbox (env SANDBOX_ADMIN_TOKEN); on loopback
                       without one, a token is made for the start and printed
  --no-admin           never enable the admin API, even on loopback (env SANDBOX_NO_ADMIN=1)
  --log-format FORMAT  pretty (a short line per request, for a person) or json (env SANDBOX_LOG_FORMAT;
                       default: pretty when standard output is a terminal, json otherwise)
  --watch              reload when a file served or the config changes (default when stdout is a terminal)
  --no-watch           never watch the files (wins over --watch); SIGHUP reloads either way
  -v, --version        print the version
  -h, --help           show this help

In a browser: /docs is the API's interactive documentation, with a key of the visitor's own; with the
admin API on, /__sandbox/console shows the live journal, keys, clock, workspaces and rules.
/__sandbox/health/live and /__sandbox/health/ready answer without a token (for a load balancer).

Precedence: defaults < config file < environment < flags.
`;

const DRAIN_MS = 10_000;

/** The package's version, from its package.json (two levels up, from dist/cli/ as from the bundle in dist/bin/). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

/**
 * Output that cannot be written is no reason to stop serving, nor to end in a stack trace at the
 * next line written: a reader that has gone (`understudy | head -1`) is taken silently; any other
 * failure of standard output (`understudy > log` on a full disk) is said once on standard error.
 * What is written after it is lost, as it would be anyway.
 */
function surviveFailedOutput(): void {
  let said = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || said) return;
    said = true;
    process.stderr.write(`understudy: standard output failed (${error.message}): what it would have printed is lost; still serving\n`);
  });
  process.stderr.on('error', () => {
    // Nowhere left to say it.
  });
}

async function main(): Promise<number> {
  surviveFailedOutput();
  if (process.argv[2] === 'mcp') {
    // Loaded only for MCP: a start never loads it, nor the SDK it stands on.
    const { mcpCommand } = await import('./mcp-command.js');
    return mcpCommand(process.argv.slice(3));
  }
  if (process.argv[2] === 'explain') {
    try {
      return await explain(process.argv.slice(3), (text) => process.stdout.write(text), DEFAULT_CONFIG.spec);
    } catch (error) {
      process.stderr.write(`understudy explain: ${(error as Error).message}\n`);
      return 1;
    }
  }
  if (process.argv[2] === 'receive') {
    const { receive } = await import('./receive.js');
    return receive(process.argv.slice(3), { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) });
  }
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        spec: { type: 'string' },
        config: { type: 'string' },
        fixtures: { type: 'string' },
        data: { type: 'string' },
        snapshot: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        seed: { type: 'string' },
        'admin-token': { type: 'string' },
        'no-admin': { type: 'boolean' },
        'log-format': { type: 'string' },
        redis: { type: 'string' },
        watch: { type: 'boolean' },
        'no-watch': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`understudy: ${(error as Error).message}\nRun understudy --help for the options.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`understudy ${version()}\n`);
    return 0;
  }
  const noAdmin = values['no-admin'] === true || (process.env.SANDBOX_NO_ADMIN ?? '') !== '';
  let sandbox;
  let config;
  const report = startupReport(
    process.stdout.isTTY,
    (line) => process.stdout.write(line),
    (line) => process.stderr.write(line),
  );
  const flags: ConfigFlags = {
    config: values.config,
    spec: values.spec,
    fixtures: values.fixtures,
    data: values.data,
    snapshot: values.snapshot,
    port: values.port,
    host: values.host,
    seed: values.seed,
    adminToken: values['admin-token'],
    logFormat: values['log-format'],
    redis: values.redis,
  };
  let admin;
  try {
    const loaded = await loadConfig(flags, process.env);
    if (noAdmin && loaded.adminToken !== null)
      throw new Error('--no-admin (or SANDBOX_NO_ADMIN) and an admin token contradict each other: give one');
    admin = chooseAdmin(loaded, noAdmin);
    config = admin.config;
    // A reload reads the config again the same way (its file, the environment, the same flags), and
    // keeps the token made for this start.
    const made = admin.generated;
    const configFile = flags.config ?? process.env.SANDBOX_CONFIG;
    sandbox = await createSandbox(config, {
      onProgress: report.onProgress,
      reloadConfig: async () =>
        chooseAdmin(await loadConfig(flags, process.env), noAdmin, made === undefined ? undefined : () => made).config,
      ...(configFile === undefined ? {} : { configFile: resolve(configFile) }),
    });
  } catch (error) {
    process.stderr.write(`understudy: cannot start: ${(error as Error).message}\n`);
    return 1;
  }
  const output = logOutput(config.log.format, process.stdout.isTTY, process.env);
  const { log, logger, flush } = requestLogger(config.log.level, { ...output, redaction: sandbox.redaction });
  sandbox.onExchange(log);
  // Reload outcomes go through the reload log: a failure repeated is one line and a count.
  const reloads = reloadLog((level, message) => logger[level](message));
  sandbox.onNotice((notice) => reloads.notice(notice));
  const server = createSandboxServer(sandbox);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    process.stderr.write(`understudy: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}\n`);
    return 1;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  process.stdout.write(report.summary(sandbox.model));
  process.stdout.write(stateSummary(stateModel(sandbox.model)));
  process.stdout.write(
    `understudy: serving ${sandbox.model.title} ${sandbox.model.version} at http://${host}:${port}${sandbox.basePath}\n`,
  );
  if (config.pages.docs !== null) process.stdout.write(`understudy: docs at http://${host}:${port}${config.pages.docs}\n`);
  process.stdout.write(adminLines(config, admin.generated, `http://${host}:${port}`));
  if (config.redis.url !== null) {
    process.stdout.write(`understudy: state shared with every replica on ${safeUrl(config.redis.url)} (prefix ${config.redis.prefix})\n`);
  }

  // The outcome of a reload is logged by the core's notice (the generation, or the errors and the
  // generation still serving); here only what set it off, and a reload that threw.
  const running = sandbox;
  const reload = async (cause: string): Promise<void> => {
    reloads.started(cause);
    try {
      await running.reload();
    } catch (error) {
      logger.error({ err: error }, `reload failed: ${(error as Error).message}`);
    }
  };
  const onHangUp = (): void => void reload('SIGHUP');
  process.on('SIGHUP', onHangUp);

  let watcher: FileWatch | undefined;
  if (!values['no-watch'] && (values.watch === true || process.stdout.isTTY)) {
    const configFile = flags.config ?? process.env.SANDBOX_CONFIG;
    // Only the files the sandbox reads, and after a failed reload the `$ref`'d files it found missing:
    // writing one sets off the next reload; nothing else in their folders does (a log written there).
    const watched = (): string[] => {
      const { files, lastReload } = running.status();
      const missing = lastReload?.ok === false ? missingReferences(lastReload.errors) : [];
      return [...new Set([...files, ...(configFile ? [resolve(configFile)] : []), ...missing])];
    };
    // Loaded only to watch: chokidar is not needed otherwise.
    const { watchFiles } = await import('./watch-files.js');
    watcher = watchFiles(watched, (changed) => reload(`${changed.join(', ')} changed`), {
      onError: (error) => logger.warn(`watching the files: ${error.message}`),
    });
    await watcher.ready();
    const count = watched().length;
    process.stdout.write(`understudy: watching ${count} file${count === 1 ? '' : 's'} for changes (--no-watch to stop)\n`);
  }

  return new Promise((done) => {
    const stop = (signal: string) => {
      process.stdout.write(`understudy: ${signal}: draining requests in flight, then stopping\n`);
      process.off('SIGHUP', onHangUp);
      void (watcher?.close() ?? Promise.resolve())
        .then(() => drain(server, DRAIN_MS))
        .then(() => sandbox.close())
        .catch((error: unknown) => logger.error({ err: error }, `stopping: ${(error as Error).message}`))
        .then(() => {
          // The request log's last lines before the last word.
          reloads.flush();
          flush();
          process.stdout.write('understudy: stopped\n');
          done(0);
        });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

// Not a top-level await: the bundle the bin runs is a CommonJS script (see bin.cts).
void main().then((code) => {
  process.exitCode = code;
});
