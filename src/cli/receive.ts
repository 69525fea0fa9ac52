import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { secretProblem } from '../webhooks/sign.js';
import { answerFor, jsonLine, textLine, type Answer, type ReceivePolicy, type TakenRequest } from './receive-exchange.js';

/**
 * `understudy receive`: a webhook receiver to try the sandbox's deliveries on. It answers every
 * request, prints a line for each, and can fail the first ones on purpose (to see a retry) and
 * check Standard Webhooks signatures (to see what a production receiver would accept).
 */

export const RECEIVE_HELP = `Usage: understudy receive [options]

A webhook receiver to try deliveries on: it answers every request, whatever its method and path, and
prints one line for each (the time, method, path, webhook-id, the body's event type, the status it
answered, and with --secret whether the signature verified). Subscribe a URL under its address
(http://127.0.0.1:4000/hooks). Ctrl-C stops it.

  --port N         port to listen on (default 4000; 0 picks a free one)
  --host HOST      address to listen on (default 127.0.0.1)
  --fail N         answer 503 to the first N requests, to see the sender retry (default 0)
  --status CODE    the answer to the others (default 204)
  --secret SECRET  check each request's Standard Webhooks signature with this secret (whsec_…):
                   one that does not verify is answered 401, and does not count among --fail's
  --json           print each request as one JSON line (its headers and body too), for scripts;
                   what the receiver says of itself goes to standard error
  -h, --help       show this help
`;

const DEFAULT_PORT = 4000;
const DEFAULT_HOST = '127.0.0.1';
/** A body past this is answered 413 (a delivery is a few kilobytes; this is a tool, not a sink). */
const MAX_BODY_BYTES = 1024 * 1024;

interface ReceiveOptions {
  readonly port: number;
  readonly host: string;
  readonly policy: ReceivePolicy;
  readonly json: boolean;
}

export interface ReceiveOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** A whole number in [min, max] (or at least min) from a flag's text, or an error naming the flag. */
function whole(flag: string, text: string | undefined, fallback: number, min: number, max?: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
    const range = max === undefined ? `, ${min} or more` : ` from ${min} to ${max}`;
    throw new Error(`${flag} takes a whole number${range}, not "${text}"`);
  }
  return n;
}

/** The options from the arguments after `receive`, or undefined for --help. @throws on a bad one */
function parseOptions(args: readonly string[]): ReceiveOptions | undefined {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      fail: { type: 'string' },
      status: { type: 'string' },
      secret: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const secret = values.secret;
  const problem = secret === undefined ? undefined : secretProblem(secret);
  if (problem !== undefined) throw new Error(`--secret: ${problem}`);
  return {
    port: whole('--port', values.port, DEFAULT_PORT, 0, 65535),
    host: values.host ?? DEFAULT_HOST,
    json: values.json === true,
    policy: {
      fail: whole('--fail', values.fail, 0, 0),
      // A final status: 1xx are interim answers, not an answer to end a request with.
      status: whole('--status', values.status, 204, 200, 599),
      ...(secret !== undefined && { secret }),
    },
  };
}

/** What the receiver will do, said once it listens. */
function readyLine(url: string, { fail, status, secret }: ReceivePolicy): string {
  const first = fail === 1 ? 'the first request' : `the first ${fail} requests`;
  const answers = fail > 0 ? `answering 503 to ${first}, then ${status}` : `answering ${status}`;
  const signatures = secret === undefined ? 'signatures not checked (--secret checks them)' : 'checking signatures with --secret';
  return `understudy receive: listening on ${url} (subscribe ${url}/hooks, or any path)\nunderstudy receive: ${answers}; ${signatures}\n`;
}

/** Reads a request whole (up to the cap) with its headers as one string each. */
function take(request: IncomingMessage, done: (taken: TakenRequest, tooLarge: boolean) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  request.on('end', () => {
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
    );
    const taken = { method: request.method ?? '', path: request.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') };
    done(taken, size > MAX_BODY_BYTES);
  });
}

function send(response: ServerResponse, status: number, body: object | undefined): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** Runs the receiver until SIGINT or SIGTERM; resolves with the exit code. */
export async function receive(args: readonly string[], output: ReceiveOutput): Promise<number> {
  let options: ReceiveOptions | undefined;
  try {
    options = parseOptions(args);
  } catch (error) {
    output.err(`understudy receive: ${(error as Error).message}\nRun understudy receive --help for the options.\n`);
    return 2;
  }
  if (options === undefined) {
    output.out(RECEIVE_HELP);
    return 0;
  }
  const { policy, json, host: wantedHost, port: wantedPort } = options;
  // With --json, standard output holds the requests alone.
  const say = json ? output.err : output.out;
  let failed = 0;
  let taken = 0;
  const print = (at: number, request: TakenRequest, answer: Answer): void =>
    output.out(json ? jsonLine(at, request, answer) : textLine(at, request, answer));
  const server = createServer((request, response) => {
    take(request, (req, tooLarge) => {
      taken++;
      const at = Date.now();
      if (tooLarge) {
        const message = `the body is larger than ${MAX_BODY_BYTES} bytes`;
        send(response, 413, { code: 'payload_too_large', message, status: 413 });
        print(at, req, { status: 413, note: message, failed: false });
        return;
      }
      const answer = answerFor(policy, failed, req);
      if (answer.failed) failed++;
      send(response, answer.status, answer.body);
      print(at, req, answer);
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(wantedPort, wantedHost, () => resolve());
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why = code === 'EADDRINUSE' ? 'the port is in use (--port chooses another)' : message;
    output.err(`understudy receive: cannot listen on ${wantedHost}:${wantedPort}: ${why}\n`);
    return 1;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : wantedPort;
  const host = wantedHost.includes(':') ? `[${wantedHost}]` : wantedHost;
  say(readyLine(`http://${host}:${port}`, policy));

  return new Promise((done) => {
    const stop = (signal: string): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      // A receiver holds nothing worth draining for: connections still open are closed now.
      server.close(() => {
        say(`understudy receive: ${signal}: stopped after ${taken} request${taken === 1 ? '' : 's'}\n`);
        done(0);
      });
      server.closeAllConnections();
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}
