import { describe, expect, it } from 'vitest';
import { redactionFor, type Redaction } from '../../src/journal/redaction.js';
import { logOutput } from '../../src/cli/request-log.js';
import { colorWanted, terminalLine, terminalMessage } from '../../src/cli/terminal-log.js';
import type { Exchange, SandboxRequest, SandboxResponse } from '../../src/vocabulary/exchange.js';
import type { SecurityScheme } from '../../src/vocabulary/operation.js';

// Built from local time, so the line's local wall clock reads 12:04:05.123 in any time zone.
const NOW = new Date(2026, 0, 2, 12, 4, 5, 123).getTime();
const KEY = 'key_3f2a9c1b7d4e';

// The exact ANSI codes the lines use: each style closes only what it opened.
const dim = (text: string): string => `\x1b[2m${text}\x1b[22m`;
const bold = (text: string): string => `\x1b[1m${text}\x1b[22m`;
const red = (text: string): string => `\x1b[31m${text}\x1b[39m`;
const green = (text: string): string => `\x1b[32m${text}\x1b[39m`;
const yellow = (text: string): string => `\x1b[33m${text}\x1b[39m`;
const blue = (text: string): string => `\x1b[34m${text}\x1b[39m`;
const magenta = (text: string): string => `\x1b[35m${text}\x1b[39m`;
const TIME = dim('12:04:05.123');

function request(method: string, path: string, query = ''): SandboxRequest {
  return {
    id: 'req-1',
    method,
    path,
    query,
    headers: {},
    clientAddress: '127.0.0.1',
    readBody: () => Promise.resolve({ kind: 'ok', bytes: Buffer.alloc(0) }),
  };
}

const limited = (code: string): SandboxResponse => ({
  status: 429,
  headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'retry-after': '42' },
  body: { code, message: 'no' },
});

const listPets: Exchange = {
  request: request('GET', '/v1/pets', 'limit=2'),
  response: { status: 200, headers: {} },
  operationId: 'listPets',
  keyId: KEY,
  keyName: 'demo-free',
  workspace: 'default',
  durationMs: 3.14,
};

const SCENARIOS: readonly { name: string; exchange: Exchange; plain: string; colored: string }[] = [
  {
    name: 'a 200 with a named key',
    exchange: listPets,
    plain: `12:04:05.123  GET     /v1/pets?limit=2                  200    3.1 ms  listPets          demo-free (${KEY})`,
    colored: `${TIME}  ${bold('GET')}     /v1/pets?limit=2                  ${green('200')}    3.1 ms  listPets          demo-free ${dim(`(${KEY})`)}`,
  },
  {
    name: 'no key (a 401)',
    exchange: { ...listPets, keyId: undefined, keyName: undefined, response: { status: 401, headers: {} }, durationMs: 0.42 },
    plain: '12:04:05.123  GET     /v1/pets?limit=2                  401    0.4 ms  listPets          -',
    colored: `${TIME}  ${bold('GET')}     /v1/pets?limit=2                  ${yellow('401')}    0.4 ms  listPets          ${dim('-')}`,
  },
  {
    name: 'a key without a name',
    exchange: { ...listPets, keyName: undefined },
    plain: `12:04:05.123  GET     /v1/pets?limit=2                  200    3.1 ms  listPets          ${KEY}`,
    colored: `${TIME}  ${bold('GET')}     /v1/pets?limit=2                  ${green('200')}    3.1 ms  listPets          ${KEY}`,
  },
  {
    name: 'a 404 with no operation',
    exchange: { ...listPets, request: request('GET', '/v1/nowhere'), operationId: undefined, response: { status: 404, headers: {} } },
    plain: `12:04:05.123  GET     /v1/nowhere                       404    3.1 ms  -                 demo-free (${KEY})`,
    colored: `${TIME}  ${bold('GET')}     /v1/nowhere                       ${yellow('404')}    3.1 ms  ${dim('-')}                 demo-free ${dim(`(${KEY})`)}`,
  },
  {
    name: 'a forced answer (its preferred delay named once, as the delay)',
    exchange: {
      ...listPets,
      request: request('GET', '/v1/pets/1'),
      operationId: 'getPet',
      response: { status: 404, headers: {} },
      durationMs: 251.6,
      applied: { preference: 'code=404, example=missing, delay=250', delayMs: 250 },
    },
    plain: `12:04:05.123  GET     /v1/pets/1                        404    252 ms  getPet            demo-free (${KEY})  forced code=404, example=missing, delay 250 ms`,
    colored:
      `${TIME}  ${bold('GET')}     /v1/pets/1                        ${yellow('404')}    252 ms  getPet            demo-free ${dim(`(${KEY})`)}` +
      `  ${blue('forced code=404, example=missing, delay 250 ms')}`,
  },
  {
    name: 'a fault',
    exchange: {
      ...listPets,
      request: request('DELETE', '/v1/pets/1'),
      operationId: 'deletePet',
      response: { status: 204, headers: {} },
      applied: { fault: 'connection_reset' },
    },
    plain: `12:04:05.123  DELETE  /v1/pets/1                        204    3.1 ms  deletePet         demo-free (${KEY})  fault connection_reset`,
    colored: `${TIME}  ${bold('DELETE')}  /v1/pets/1                        ${green('204')}    3.1 ms  deletePet         demo-free ${dim(`(${KEY})`)}  ${blue('fault connection_reset')}`,
  },
  {
    name: 'a rule and a delay',
    exchange: {
      ...listPets,
      request: request('POST', '/v1/pets'),
      operationId: 'createPet',
      response: { status: 201, headers: {} },
      durationMs: 203.7,
      applied: { rule: 'r1', delayMs: 200 },
    },
    plain: `12:04:05.123  POST    /v1/pets                          201    204 ms  createPet         demo-free (${KEY})  rule r1, delay 200 ms`,
    colored: `${TIME}  ${bold('POST')}    /v1/pets                          ${green('201')}    204 ms  createPet         demo-free ${dim(`(${KEY})`)}  ${blue('rule r1, delay 200 ms')}`,
  },
  {
    name: 'a status drawn from a fault list',
    exchange: { ...listPets, response: { status: 503, headers: {} }, applied: { injectedStatus: 503 } },
    plain: `12:04:05.123  GET     /v1/pets?limit=2                  503    3.1 ms  listPets          demo-free (${KEY})  injected 503`,
    colored: `${TIME}  ${bold('GET')}     /v1/pets?limit=2                  ${red('503')}    3.1 ms  listPets          demo-free ${dim(`(${KEY})`)}  ${blue('injected 503')}`,
  },
  {
    name: 'a 429 from the limiter',
    exchange: { ...listPets, response: limited('rate_limited'), durationMs: 0.31 },
    plain: `12:04:05.123  GET     /v1/pets?limit=2                  429    0.3 ms  listPets          demo-free (${KEY})  429 limited`,
    colored: `${TIME}  ${bold('GET')}     /v1/pets?limit=2                  ${magenta('429')}    0.3 ms  listPets          demo-free ${dim(`(${KEY})`)}  ${blue('429 limited')}`,
  },
  {
    name: 'a 429 to a banned key',
    exchange: { ...listPets, response: limited('key_banned'), durationMs: 0.29 },
    plain: `12:04:05.123  GET     /v1/pets?limit=2                  429    0.3 ms  listPets          demo-free (${KEY})  429 banned`,
    colored: `${TIME}  ${bold('GET')}     /v1/pets?limit=2                  ${magenta('429')}    0.3 ms  listPets          demo-free ${dim(`(${KEY})`)}  ${blue('429 banned')}`,
  },
  {
    name: 'a 429 forced by a preference (not the limiter)',
    exchange: { ...listPets, response: limited('rate_limited'), applied: { preference: 'code=429' } },
    plain: `12:04:05.123  GET     /v1/pets?limit=2                  429    3.1 ms  listPets          demo-free (${KEY})  forced code=429`,
    colored: `${TIME}  ${bold('GET')}     /v1/pets?limit=2                  ${magenta('429')}    3.1 ms  listPets          demo-free ${dim(`(${KEY})`)}  ${blue('forced code=429')}`,
  },
  {
    name: 'a request the sandbox failed on (red from end to end, its message on one line)',
    exchange: {
      ...listPets,
      response: { status: 500, headers: {} },
      durationMs: 12.5,
      error: new TypeError('boom\n  in the store\x1b[2J'),
    },
    plain: `12:04:05.123  GET     /v1/pets?limit=2                  500   12.5 ms  listPets          demo-free (${KEY})  failed: boom in the store [2J`,
    colored: red(
      `12:04:05.123  GET     /v1/pets?limit=2                  500   12.5 ms  listPets          demo-free (${KEY})  failed: boom in the store [2J`,
    ),
  },
  {
    name: 'a long path (the query keeps half the room, the path is cut in its middle)',
    exchange: {
      ...listPets,
      request: request('GET', '/v1/owners/12345678/pets/87654321/photos/abcdef', 'limit=2&after=cursor-0123456789'),
      operationId: 'listPhotos',
      durationMs: 1234.4,
    },
    plain: `12:04:05.123  GET     /v1/owners/123…photos/abcdef?limit=2&after=cursor-01234…  200   1234 ms  listPhotos        demo-free (${KEY})`,
    colored: `${TIME}  ${bold('GET')}     /v1/owners/123…photos/abcdef?limit=2&after=cursor-01234…  ${green('200')}   1234 ms  listPhotos        demo-free ${dim(`(${KEY})`)}`,
  },
  {
    name: 'an admin key path (the key hidden)',
    exchange: {
      ...listPets,
      request: request('GET', '/__sandbox/keys/demo-free'),
      operationId: undefined,
      keyId: undefined,
      keyName: undefined,
    },
    plain: '12:04:05.123  GET     /__sandbox/keys/…                 200    3.1 ms  -                 -',
    colored: `${TIME}  ${bold('GET')}     /__sandbox/keys/…                 ${green('200')}    3.1 ms  ${dim('-')}                 ${dim('-')}`,
  },
];

describe('terminalLine', () => {
  for (const { name, exchange, plain, colored } of SCENARIOS) {
    it(`shows ${name}`, () => {
      expect(terminalLine(exchange, { color: false, now: NOW })).toBe(plain);
      expect(terminalLine(exchange, { color: true, now: NOW })).toBe(colored);
    });
  }

  it('redacts credentials in the query: access_token always, the document’s apiKey names and the secrets when given', () => {
    const line = (query: string, redaction?: Redaction): string =>
      terminalLine(
        { ...listPets, request: request('GET', '/v1/pets', query) },
        { color: false, now: NOW, ...(redaction ? { redaction } : {}) },
      );
    expect(line('access_token=abc&limit=2')).toContain(' /v1/pets?access_token=[redacted]&limit=2  200 ');
    expect(line('api_key=s3cret&q=sk-live-12345678')).toContain(' /v1/pets?api_key=s3cret&q=sk-live-12345678  200 ');
    const schemes = new Map<string, SecurityScheme>([['key', { kind: 'apiKey', name: 'key', in: 'query', parameter: 'api_key' }]]);
    const redaction = redactionFor(schemes, ['sk-live-12345678']);
    expect(line('api_key=s3cret&q=sk-live-12345678', redaction)).toContain(' /v1/pets?api_key=[redacted]&q=[redacted]  200 ');
  });
});

describe('terminalMessage', () => {
  const at = new Date(NOW).toISOString();
  it('shows the log’s other messages as lines aligned with the requests’: time, level, message and the error’s own', () => {
    const warn = `${JSON.stringify({ level: 40, time: at, msg: 'watching the files: EMFILE' })}\n`;
    expect(terminalMessage(warn, false)).toBe('12:04:05.123  warn    watching the files: EMFILE');
    expect(terminalMessage(warn, true)).toBe(`${TIME}  ${yellow('warn')}    watching the files: EMFILE`);
    const info = JSON.stringify({ level: 30, time: at, msg: 'reloading: SIGHUP' });
    expect(terminalMessage(info, true)).toBe(`${TIME}  info    reloading: SIGHUP`);
    // The message already says the error's: it is not said twice.
    const said = JSON.stringify({
      level: 50,
      time: at,
      msg: 'reload failed: bad yaml',
      err: { type: 'Error', message: 'bad yaml', stack: '…' },
    });
    expect(terminalMessage(said, true)).toBe(`${TIME}  ${red('error')}   reload failed: bad yaml`);
    const unsaid = JSON.stringify({ level: 50, time: at, msg: 'stopping', err: { message: 'EIO' } });
    expect(terminalMessage(unsaid, false)).toBe('12:04:05.123  error   stopping: EIO');
  });

  it('keeps a message’s line breaks but not its other control characters, and passes a line that is not JSON on', () => {
    const multi = JSON.stringify({ level: 50, time: at, msg: 'reload failed:\napi.yaml:3:1 bad\x1b[31m' });
    expect(terminalMessage(multi, false)).toBe('12:04:05.123  error   reload failed:\napi.yaml:3:1 bad [31m');
    expect(terminalMessage('not json\n', true)).toBe('not json');
  });
});

describe('the log’s output', () => {
  it('colours only on a terminal, unless NO_COLOR is set to anything; FORCE_COLOR wins either way', () => {
    // Off a terminal, process.stdout.isTTY is undefined, not false.
    const table: [Record<string, string>, boolean | undefined, boolean][] = [
      [{}, true, true],
      [{}, false, false],
      [{}, undefined, false],
      [{ NO_COLOR: '1' }, true, false],
      [{ NO_COLOR: '' }, true, true],
      [{ FORCE_COLOR: '0' }, true, false],
      [{ FORCE_COLOR: 'false' }, true, false],
      [{ FORCE_COLOR: '1' }, false, true],
      [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
      [{ FORCE_COLOR: '' }, false, false],
    ];
    for (const [env, tty, wanted] of table) expect([env, tty, colorWanted(env, tty)]).toEqual([env, tty, wanted]);
  });

  it('is pretty on a terminal and JSON otherwise, unless the format is given; JSON is never coloured', () => {
    expect(logOutput('auto', true, {})).toEqual({ format: 'pretty', color: true });
    expect(logOutput('auto', false, {})).toEqual({ format: 'json', color: false });
    expect(logOutput('auto', undefined, {})).toEqual({ format: 'json', color: false });
    expect(logOutput('pretty', undefined, {})).toEqual({ format: 'pretty', color: false });
    expect(logOutput('pretty', false, {})).toEqual({ format: 'pretty', color: false });
    expect(logOutput('pretty', true, { NO_COLOR: '1' })).toEqual({ format: 'pretty', color: false });
    expect(logOutput('json', true, { FORCE_COLOR: '1' })).toEqual({ format: 'json', color: false });
  });
});
