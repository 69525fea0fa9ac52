/**
 * The request log as a person on a terminal reads it: one short line per request, its columns
 * aligned, coloured when the terminal shows colours. Pure: the line is made from the exchange and the
 * time, and nothing is written here (request-log.ts writes it).
 */

import { limitDecision } from '../journal/entry.js';
import { BASE_REDACTION, redactPairs, scrub, type Redaction } from '../journal/redaction.js';
import type { Exchange } from '../vocabulary/exchange.js';

export interface TerminalLineOptions {
  /** ANSI colours in the line. */
  readonly color: boolean;
  /** When the line is made, Unix milliseconds: shown as local wall-clock time. */
  readonly now: number;
  /** What a query string shows redacted (the document's credential names, the secrets); the base redaction when absent. */
  readonly redaction?: Redaction;
}

// The widths of the columns. The method column fits OPTIONS; the duration column `99999 ms`. A path
// up to PATH_WIDTH keeps the columns after it aligned; a longer one pushes them on rather than lose
// its middle, up to PATH_MAX, past which it is cut in the middle, where the least is lost: the start
// says which collection, the end which record and which query.
const METHOD_WIDTH = 7;
const PATH_WIDTH = 32;
const PATH_MAX = 56;
const DURATION_WIDTH = 8;
const OPERATION_WIDTH = 16;

/** ANSI SGR pairs: each closes only what it opened, so a colour inside a dim span ends cleanly. */
const STYLES = {
  bold: ['\x1b[1m', '\x1b[22m'],
  dim: ['\x1b[2m', '\x1b[22m'],
  red: ['\x1b[31m', '\x1b[39m'],
  green: ['\x1b[32m', '\x1b[39m'],
  yellow: ['\x1b[33m', '\x1b[39m'],
  blue: ['\x1b[34m', '\x1b[39m'],
  magenta: ['\x1b[35m', '\x1b[39m'],
  cyan: ['\x1b[36m', '\x1b[39m'],
} as const;

type Style = keyof typeof STYLES;

const styled = (color: boolean, style: Style, text: string): string => (color ? `${STYLES[style][0]}${text}${STYLES[style][1]}` : text);

/** Text styled, then padded to `width` columns: the padding stays outside the escape codes. */
const padded = (color: boolean, style: Style | undefined, text: string, width: number): string =>
  (style === undefined ? text : styled(color, style, text)) + ' '.repeat(Math.max(0, width - text.length));

/** Admin paths may carry a key (`/__sandbox/keys/{key}`): never log it. */
export const loggedPath = (path: string): string => (path.startsWith('/__sandbox/keys/') ? '/__sandbox/keys/…' : path);

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** `12:04:05.123`, local time: a person compares it with the clock on the wall, not with UTC. */
export function clockText(ms: number): string {
  const at = new Date(ms);
  const millis = at.getMilliseconds();
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}`;
}

/** Three to five significant characters: tenths where they mean something (under 100 ms), whole milliseconds above. */
const durationText = (ms: number): string => `${ms < 99.95 ? ms.toFixed(1) : String(Math.round(ms))} ms`;

/** `text` in at most `width` characters, cut in its middle. */
function middleCut(text: string, width: number): string {
  if (text.length <= width) return text;
  const head = Math.ceil((width - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (width - 1 - head))}`;
}

/**
 * The path and query as the line shows them: an admin key path hidden, credentials redacted. Longer
 * than PATH_MAX, the query keeps at least half the room, cut at its end (the parameters sent first
 * stay whole), and the path the rest, cut in its middle.
 */
function pathText(path: string, query: string, r: Redaction): string {
  const shownPath = scrub(loggedPath(path), r);
  const shownQuery = query === '' ? '' : `?${redactPairs(query, r.query, r)}`;
  if (shownPath.length + shownQuery.length <= PATH_MAX) return shownPath + shownQuery;
  const queryRoom = Math.max(PATH_MAX - shownPath.length, Math.floor(PATH_MAX / 2));
  const cutQuery = shownQuery.length <= queryRoom ? shownQuery : `${shownQuery.slice(0, queryRoom - 1)}…`;
  return middleCut(shownPath, PATH_MAX - cutQuery.length) + cutQuery;
}

/** 2xx green, 3xx cyan, 4xx yellow, 5xx red; 429 magenta, so that a limit reached stands out from a client's mistakes. */
function statusStyle(status: number): Style {
  if (status === 429) return 'magenta';
  if (status >= 500) return 'red';
  if (status >= 400) return 'yellow';
  if (status >= 300) return 'cyan';
  return 'green';
}

/**
 * What shaped the answer beyond the document, in words: `forced code=404`, `rule r1`, `delay 200 ms`,
 * `fault connection_reset`, `injected 503`; a 429 of the limiter's own says `429 limited` or `429 banned`.
 * A delay or fault preferred is named once, as the delay or fault, not again among what was forced.
 */
export function appliedText(exchange: Exchange): string {
  const { applied, response } = exchange;
  if (applied === undefined) {
    // Only the limiter refuses with nothing applied: a 429 forced by a preference or a rule says so.
    if (response.status !== 429) return '';
    const limit = limitDecision(response);
    return limit === undefined ? '' : limit.banned ? '429 banned' : '429 limited';
  }
  const parts: string[] = [];
  const forced = applied.preference
    ?.split(', ')
    .filter((item) => !item.startsWith('delay=') && !item.startsWith('fault='))
    .join(', ');
  if (forced) parts.push(`forced ${forced}`);
  if (applied.rule !== undefined) parts.push(`rule ${applied.rule}`);
  if (applied.injectedStatus !== undefined) parts.push(`injected ${applied.injectedStatus}`);
  if (applied.delayMs !== undefined) parts.push(`delay ${applied.delayMs} ms`);
  if (applied.fault !== undefined) parts.push(`fault ${applied.fault}`);
  return parts.join(', ');
}

/** Control characters would move the cursor or colour the terminal: a message shows them as spaces (line breaks kept when asked). */
const printable = (text: string, keepLines: boolean): string =>
  keepLines ? text.replace(/[^\P{Cc}\n\t]/gu, ' ') : text.replace(/\s*\n\s*|\p{Cc}/gu, ' ');

const errorMessage = (error: unknown): string => printable(error instanceof Error ? error.message : String(error), false);

/**
 * One request as one line: time, method, path (with its query), status, duration, operation, key
 * (its name, when it has one, beside its id; never the key), then what was applied. A request the
 * sandbox failed on is a red line ending with the error's message.
 */
export function terminalLine(exchange: Exchange, options: TerminalLineOptions): string {
  const { request, response, keyId, keyName, operationId } = exchange;
  const failed = exchange.error !== undefined;
  // A failed request's line is red from end to end: no other colour inside it.
  const color = options.color && !failed;
  const path = pathText(request.path, request.query, options.redaction ?? BASE_REDACTION);
  const key =
    keyId === undefined ? styled(color, 'dim', '-') : keyName === undefined ? keyId : `${keyName} ${styled(color, 'dim', `(${keyId})`)}`;
  const columns = [
    styled(color, 'dim', clockText(options.now)),
    `${padded(color, 'bold', request.method, METHOD_WIDTH)} ${path.padEnd(PATH_WIDTH)}`,
    styled(color, statusStyle(response.status), String(response.status)),
    durationText(exchange.durationMs).padStart(DURATION_WIDTH),
    operationId === undefined ? padded(color, 'dim', '-', OPERATION_WIDTH) : operationId.padEnd(OPERATION_WIDTH),
    key,
  ];
  const applied = failed ? `failed: ${errorMessage(exchange.error)}` : appliedText(exchange);
  if (applied !== '') columns.push(styled(color, 'blue', applied));
  const line = columns.join('  ');
  return failed && options.color ? styled(true, 'red', line) : line;
}

/** pino's level numbers, by name: the log writes no others. */
const LEVELS: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const LEVEL_STYLES: Readonly<Record<string, Style>> = { trace: 'dim', debug: 'dim', warn: 'yellow', error: 'red', fatal: 'red' };

/**
 * One of the log's other messages (a reload, a warning, a failure), given as pino's JSON line, as a
 * line aligned with the requests': time, level in the method's column, the message and the error's own
 * message when the message does not say it already. A line that is not pino's is passed on as it is.
 */
export function terminalMessage(jsonLine: string, color: boolean): string {
  let record: { level?: unknown; time?: unknown; msg?: unknown; err?: { message?: unknown } };
  try {
    record = JSON.parse(jsonLine) as typeof record;
  } catch {
    return jsonLine.trimEnd();
  }
  const level = (typeof record.level === 'number' ? LEVELS[record.level] : undefined) ?? 'info';
  const at = typeof record.time === 'string' ? Date.parse(record.time) : typeof record.time === 'number' ? record.time : Date.now();
  let message = typeof record.msg === 'string' ? record.msg : '';
  const cause = typeof record.err?.message === 'string' ? record.err.message : undefined;
  if (cause !== undefined && !message.includes(cause)) message = message === '' ? cause : `${message}: ${cause}`;
  return `${styled(color, 'dim', clockText(at))}  ${padded(color, LEVEL_STYLES[level], level, METHOD_WIDTH)} ${printable(message, true)}`;
}

/**
 * Whether the pretty log is coloured. On a terminal, unless `NO_COLOR` is set to anything
 * (https://no-color.org); `FORCE_COLOR`, read as Node reads it, wins over both: `0` or `false` turns
 * colour off, any other value turns it on, even when standard output is not a terminal
 * (`understudy --log-format pretty | less -R`). Either variable set empty counts as unset. `tty` is
 * `process.stdout.isTTY`, which is undefined rather than false off a terminal, whatever its type says.
 */
export function colorWanted(env: Readonly<Record<string, string | undefined>>, tty: boolean | undefined): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return tty === true;
}
