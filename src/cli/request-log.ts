import { pino, type Logger } from 'pino';
// sonic-boom is CommonJS: its class is the module itself, typed as the module's `SonicBoom`.
import sonicBoom from 'sonic-boom';
import type { Redaction } from '../journal/redaction.js';
import type { Exchange } from '../vocabulary/exchange.js';
import { colorWanted, loggedPath, terminalLine, terminalMessage } from './terminal-log.js';

/** Characters of log lines held before they are written: one write per batch (about fifty lines), not per request. */
const BATCH_CHARS = 16 * 1024;

/** How the log is written: pino's JSON lines, or a short line a person reads (terminal-log.ts), coloured or not. */
export interface LogOutput {
  readonly format: 'pretty' | 'json';
  readonly color: boolean;
  /** What the pretty lines' query strings show redacted, read at each line (a reload changes it). */
  readonly redaction?: () => Redaction;
  /** Where the log goes: standard output (1), or standard error (2) when standard output is another protocol's (`understudy mcp`). */
  readonly fd?: 1 | 2;
}

/**
 * The output for the configured format: `auto` is pretty on a terminal (a person watches) and JSON
 * otherwise (a file or a log shipper reads); colour only in the pretty format, as `colorWanted` says.
 */
export function logOutput(
  format: 'auto' | 'pretty' | 'json',
  tty: boolean | undefined,
  env: Readonly<Record<string, string | undefined>>,
): LogOutput {
  const chosen = format === 'auto' ? (tty === true ? 'pretty' : 'json') : format;
  return { format: chosen, color: chosen === 'pretty' && colorWanted(env, tty) };
}

/**
 * One log line per request: method, path, status, duration, key id and name (never the key). In the
 * JSON format, in pino's format: those lines are built as text (the fields are known; pino's generic
 * serialisation and a date per line were most of the log's cost) and go to standard output
 * asynchronously, in batches, at least once a second. In the pretty format, terminal-log.ts's lines,
 * written within the turn of the event loop that made them. `flush` writes what is held, and so does
 * the process's exit. `logger`, for everything else (and, in JSON, a request that failed), writes at
 * once, after the lines held before it.
 */
export function requestLogger(
  level: string,
  output: LogOutput = { format: 'json', color: false },
): { logger: Logger; log: (exchange: Exchange) => void; flush: () => void } {
  // sonic-boom, pino's own destination, made here rather than by pino.destination(), which loads
  // worker_threads to ask whether this is the main thread (the bundle defers that require:
  // scripts/bundle.mjs). What pino.destination() adds is here too: a write that fails stops the log,
  // not the sandbox (a reader that went away silently), and what is held is written at exit.
  const destination = new sonicBoom.SonicBoom({ fd: output.fd ?? 1, sync: false });
  let open = true;
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (!open) return;
    open = false;
    if (error.code !== 'EPIPE') process.stderr.write(`understudy: the log stopped: ${error.message}\n`);
  });
  const write = (text: string): void => {
    if (open) destination.write(text);
  };
  // The lines are gathered here and handed to the destination a batch at a time: sonic-boom measures
  // the text it holds on every write, which costs more per line the more it holds.
  let held: string[] = [];
  let heldChars = 0;
  const release = (): void => {
    if (held.length === 0) return;
    const batch = held.join('');
    held = [];
    heldChars = 0;
    write(batch);
  };
  // A person watching a terminal expects a request's line as it is answered, not up to a second
  // later: pretty lines are written once the turn that made them ends, those of one turn (a burst)
  // in one write. The JSON log keeps its batches; its reader is a program, and the bench measures it.
  let releasing = false;
  const releaseSoon = (): void => {
    if (releasing) return;
    releasing = true;
    setImmediate(() => {
      releasing = false;
      release();
    });
  };
  const hold = (line: string): void => {
    held.push(line);
    heldChars += line.length;
    if (heldChars >= BATCH_CHARS) release();
    else releaseSoon();
  };
  const flush = (): void => {
    release();
    if (!open) return;
    try {
      destination.flushSync();
    } catch {
      // Standard output is gone: nothing more can be written.
    }
  };
  process.once('exit', flush);
  // Lines held in memory wait at most this long under a trickle of requests.
  setInterval(release, 1000).unref();
  const pretty = output.format === 'pretty';
  const { color } = output;
  // What an operator must see at once (reloads, notices, failures) is written as it happens. In the
  // pretty format pino's line is read back and written as a person's line: parsing JSON costs, but
  // these messages are rare and never on a request's path.
  const logger = pino(
    { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime },
    {
      write: (line: string) => {
        release();
        write(pretty ? `${terminalMessage(line, color)}\n` : line);
      },
    },
  );
  const requestsLogged = logger.isLevelEnabled('info');
  const errorsLogged = logger.isLevelEnabled('error');
  if (pretty) {
    const redaction = output.redaction;
    const prettyLog = (exchange: Exchange): void => {
      const failed = exchange.error !== undefined;
      if (!(failed ? errorsLogged : requestsLogged)) return;
      const line = `${terminalLine(exchange, { color, now: Date.now(), ...(redaction === undefined ? {} : { redaction: redaction() }) })}\n`;
      if (!failed) {
        hold(line);
        return;
      }
      // A failure is written at once, as the JSON format's is.
      release();
      write(line);
    };
    return { logger, log: prettyLog, flush };
  }
  const now = isoClock();
  const log = (exchange: Exchange): void => {
    const { request, response } = exchange;
    if (exchange.error !== undefined) {
      if (errorsLogged) logger.error({ ...fields(exchange), err: exchange.error }, 'request failed');
      return;
    }
    // Nothing is built for a line that would not be written (the silenced log costs nothing).
    if (!requestsLogged) return;
    const { keyId, keyName, operationId } = exchange;
    const line =
      `{"level":30,"time":"${now()}","reqId":${JSON.stringify(request.id)},"method":${JSON.stringify(request.method)},` +
      `"path":${JSON.stringify(loggedPath(request.path))},"status":${response.status},"ms":${Math.round(exchange.durationMs * 100) / 100}` +
      `${keyId === undefined ? '' : `,"key":${JSON.stringify(keyId)}`}${keyName === undefined ? '' : `,"keyName":${JSON.stringify(keyName)}`}` +
      `${operationId === undefined ? '' : `,"op":${JSON.stringify(operationId)}`},"msg":"request"}\n`;
    held.push(line);
    heldChars += line.length;
    if (heldChars >= BATCH_CHARS) release();
  };
  return { logger, log, flush };
}

const fields = (exchange: Exchange): Record<string, unknown> => ({
  reqId: exchange.request.id,
  method: exchange.request.method,
  path: loggedPath(exchange.request.path),
  status: exchange.response.status,
  ms: Math.round(exchange.durationMs * 100) / 100,
  key: exchange.keyId,
  keyName: exchange.keyName,
  op: exchange.operationId,
});

/** The wall clock as ISO text, made once per millisecond (several requests share one). */
function isoClock(): () => string {
  let at = 0;
  let text = '';
  return () => {
    const ms = Date.now();
    if (ms !== at) {
      at = ms;
      text = new Date(ms).toISOString();
    }
    return text;
  };
}
