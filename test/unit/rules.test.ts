import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { drawStream } from '../../src/faults/draws.js';
import { buildGeneration, type Generation } from '../../src/generation/generation.js';
import { buildApiModel } from '../../src/openapi/build-model.js';
import { loadDocument } from '../../src/openapi/load-document.js';
import { ruleTest } from '../../src/rules/match-rule.js';
import { parseRule } from '../../src/rules/parse-rule.js';
import type { Rule, RuleDefinition, RuleRequest } from '../../src/rules/rule.js';
import type { RuleInput, RuleModel } from '../../src/rules/rule-input.js';
import { RuleStore, type RuleChoice } from '../../src/rules/rule-store.js';

const PETSTORE = fileURLToPath(new URL('../../openapi/petstore.yaml', import.meta.url));
const FORCED = fileURLToPath(new URL('../documents/forced-answers.yaml', import.meta.url));
const KEYS: Readonly<Record<string, string>> = { 'demo-pro': 'key_pro', 'demo-free': 'key_free' };

async function ruleModel(file: string): Promise<RuleModel> {
  const model = buildApiModel(await loadDocument(file));
  const generation: Generation = buildGeneration(model, 1, {
    basePath: null,
    seed: 1,
    referenceDate: new Date(0),
    validation: { unknownQueryParameters: 'ignore' },
    serveInvalidExamples: false,
  });
  return {
    document: model.document,
    operations: model.operations,
    basePath: generation.basePath,
    reached: (path, method) =>
      (method === undefined ? generation.router.methodsAt(path) : [method]).flatMap((m) => {
        const route = generation.router.match(m, path);
        return route.kind === 'found' ? [route.operation.operation] : [];
      }),
    keyId: (given) => KEYS[given] ?? (Object.values(KEYS).includes(given) ? given : undefined),
    hasWorkspace: (id) => id === 'default' || id === 'ws_team',
  };
}

let petstore: RuleModel;
let forced: RuleModel;
beforeAll(async () => {
  petstore = await ruleModel(PETSTORE);
  forced = await ruleModel(FORCED);
});

const locations = (model: RuleModel, input: unknown): string[] => {
  const parsed = parseRule(input as RuleInput, model);
  return parsed.ok ? [] : parsed.violations.map((v) => v.location);
};

const definition = (model: RuleModel, input: unknown): RuleDefinition => {
  const parsed = parseRule(input as RuleInput, model);
  if (!parsed.ok) throw new Error(`refused: ${JSON.stringify(parsed.violations)}`);
  return parsed.rule;
};

describe('parseRule: a rule is checked against the document and the keys, every problem at its field', () => {
  const RESPOND = { status: 503 };
  const cases: readonly [string, 'petstore' | 'forced', unknown, readonly string[]][] = [
    ['an operation and a status it declares (by default)', 'petstore', { match: { operationId: 'getPet' }, respond: RESPOND }, []],
    ['an unknown operationId', 'petstore', { match: { operationId: 'getPets' }, respond: RESPOND }, ['body.match.operationId']],
    ['a method no operation has', 'petstore', { match: { method: 'patch' }, respond: RESPOND }, ['body.match.method']],
    ['a path no operation is served at', 'petstore', { match: { path: '/v1/pet/1' }, respond: RESPOND }, ['body.match.path']],
    ['a path sent with its query', 'petstore', { match: { path: '/v1/pets?limit=2' }, respond: RESPOND }, ['body.match.path']],
    ['a literal path', 'petstore', { match: { path: '/v1/pets/1' }, respond: RESPOND }, []],
    ['a template with the base path, other parameter names', 'petstore', { match: { path: '/v1/pets/{id}' }, respond: RESPOND }, []],
    ['a template without the base path', 'petstore', { match: { path: '/pets/{petId}' }, respond: RESPOND }, []],
    ['an undocumented template', 'petstore', { match: { path: '/v1/cats/{id}' }, respond: RESPOND }, ['body.match.path']],
    [
      'operationId and method that name nothing together',
      'petstore',
      { match: { operationId: 'getPet', method: 'POST' } },
      ['body.match', 'body'],
    ],
    ['an unknown key', 'petstore', { match: { key: 'demo-nobody' }, respond: RESPOND }, ['body.match.key']],
    ['a key by id', 'petstore', { match: { key: 'key_pro' }, respond: RESPOND }, []],
    [
      'a query regex that does not compile',
      'petstore',
      { match: { query: { q: { matches: '(' } } }, respond: RESPOND },
      ['body.match.query.q.matches'],
    ],
    [
      'Authorization as a header matcher',
      'petstore',
      { match: { headers: { Authorization: { contains: 'demo' } } }, respond: RESPOND },
      ['body.match.headers.Authorization'],
    ],
    [
      'a body pointer without its slash',
      'petstore',
      { match: { body: { pointer: 'name', equalTo: 'Rex' } }, respond: RESPOND },
      ['body.match.body.pointer'],
    ],
    [
      'a body pointer in a list',
      'petstore',
      { match: { body: [{ equalToJson: {} }, { pointer: 'x', equalTo: 1 }] }, respond: RESPOND },
      ['body.match.body.1.pointer'],
    ],
    [
      'a status an operation does not declare',
      'forced',
      { match: { operationId: 'deleteAnimal' }, respond: RESPOND },
      ['body.respond.status'],
    ],
    [
      'a status every operation at the path declares (exactly, or by range)',
      'forced',
      { match: { path: '/animals/{id}' }, respond: { status: 409 } },
      [],
    ],
    [
      'a status the path’s other operation lacks',
      'forced',
      { match: { path: '/animals/{id}' }, respond: { status: 410 } },
      ['body.respond.status'],
    ],
    ['a named example', 'forced', { match: { operationId: 'getAnimal' }, respond: { status: 404, example: 'missing' } }, []],
    [
      'an example the response does not name',
      'forced',
      { match: { operationId: 'getAnimal' }, respond: { status: 404, example: 'cat' } },
      ['body.respond.example'],
    ],
    [
      'an example and a body',
      'forced',
      { match: { operationId: 'getAnimal' }, respond: { status: 200, example: 'cat', body: {} } },
      ['body.respond.body'],
    ],
    [
      'a body its schema takes',
      'forced',
      { match: { operationId: 'getAnimal' }, respond: { status: 200, body: { id: 3, name: 'Hoot', kind: 'owl' } } },
      [],
    ],
    [
      'a body its schema refuses, every violation',
      'forced',
      { match: { operationId: 'getAnimal' }, respond: { status: 200, body: { id: 0, kind: 'cow' } } },
      ['body.respond.body.name', 'body.respond.body.id', 'body.respond.body.kind'],
    ],
    [
      'a body for a response with no content',
      'forced',
      { match: { operationId: 'deleteAnimal' }, respond: { status: 204, body: {} } },
      ['body.respond.body'],
    ],
    [
      'a header the sandbox frames the answer with',
      'petstore',
      { match: {}, respond: { status: 503, headers: { 'Content-Length': '3' } } },
      ['body.respond.headers.Content-Length'],
    ],
    ['a header of its own', 'petstore', { match: {}, respond: { status: 503, headers: { 'Retry-After': '30' } } }, []],
    ['a malformed latency', 'petstore', { match: {}, latency: { fixed: -1 } }, ['body.latency.fixed']],
    ['a uniform latency upside down', 'petstore', { match: {}, latency: { uniform: [500, 100] } }, ['body.latency.uniform.1']],
    ['an unknown fault', 'petstore', { match: {}, fault: { fault: 'explode' } }, ['body.fault.fault']],
    ['a bare fault kind', 'petstore', { match: {}, fault: 'connection_reset' }, []],
    ['a fault list', 'petstore', { match: {}, fault: [{ status: 503, probability: 0.5 }, 'timeout'] }, []],
    ['a fault list entry never chosen', 'petstore', { match: {}, fault: ['timeout', 'dribble'] }, ['body.fault.1']],
    [
      'from after until',
      'petstore',
      { match: {}, latency: { fixed: 1 }, from: '2026-11-22T11:00:00Z', until: '2026-11-22T10:00:00Z' },
      ['body.until'],
    ],
    [
      'from equal to until',
      'petstore',
      { match: {}, latency: { fixed: 1 }, from: '2026-11-22T11:00:00Z', until: '2026-11-22T11:00:00Z' },
      ['body.until'],
    ],
    ['a rule that changes nothing', 'petstore', { match: { operationId: 'getPet' }, times: 2 }, ['body']],
    [
      'every problem at once',
      'petstore',
      { match: { operationId: 'nope', key: 'nobody' }, respond: RESPOND, latency: { fixed: 'x' } },
      ['body.match.operationId', 'body.match.key', 'body.latency.fixed'],
    ],
  ];
  it.each(cases)('%s', (_name, doc, input, expected) => {
    expect(locations(doc === 'petstore' ? petstore : forced, input)).toEqual(expected);
  });

  it('keeps the key by its id and the method in upper case; reads a template as the documented one; instants as ms', () => {
    const rule = definition(petstore, {
      match: { key: 'demo-pro', method: 'get', path: '/v1/pets/{id}', headers: { 'X-Trace': { equalTo: 'a' } } },
      respond: { status: 503 },
      from: '2026-11-22T10:05:00Z',
    });
    expect(rule.match).toEqual({ key: 'key_pro', method: 'GET', path: '/v1/pets/{id}', headers: { 'x-trace': { equalTo: 'a' } } });
    expect(rule.pathTemplates).toEqual(['/pets/{petId}']);
    expect(rule.from).toBe(Date.parse('2026-11-22T10:05:00Z'));
    expect(JSON.stringify(rule)).not.toContain('demo-pro');
  });

  it('names the operations that lack the status, and what they declare', () => {
    const parsed = parseRule({ match: { operationId: 'deleteAnimal' }, respond: { status: 503 } }, forced);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.violations[0]?.message).toBe('is not declared by deleteAnimal (declares 204, 409)');
  });
});

const REQUEST: RuleRequest = {
  operationId: 'getPet',
  pathTemplate: '/pets/{petId}',
  method: 'GET',
  path: '/v1/pets/1',
  query: 'limit=2&tag=a+b',
  headers: { 'x-trace': 'abc123', host: 'x' },
  keyId: 'key_pro',
  workspace: 'default',
  body: undefined,
  now: Date.parse('2026-11-22T10:00:30Z'),
};

describe('ruleTest: every field of the match must hold, and the clock must be in the window', () => {
  const cases: readonly [string, unknown, Partial<RuleRequest>, boolean][] = [
    ['an empty match: every request', { match: {} }, {}, true],
    ['the operation', { match: { operationId: 'getPet' } }, {}, true],
    ['another operation', { match: { operationId: 'listPets' } }, {}, false],
    ['the method in any case', { match: { method: 'get' } }, {}, true],
    ['a literal path: exactly that path', { match: { path: '/v1/pets/1' } }, {}, true],
    ['a literal path: not another value', { match: { path: '/v1/pets/1' } }, { path: '/v1/pets/2' }, false],
    ['a template: any value of its parameters', { match: { path: '/v1/pets/{id}' } }, { path: '/v1/pets/99' }, true],
    ['a template: not another operation', { match: { path: '/v1/pets/{id}' } }, { pathTemplate: '/pets', operationId: 'listPets' }, false],
    ['the key', { match: { key: 'key_pro' } }, {}, true],
    ['another key', { match: { key: 'key_pro' } }, { keyId: 'key_free' }, false],
    ['no key at all', { match: { key: 'key_pro' } }, { keyId: undefined }, false],
    ['a query value, decoded', { match: { query: { tag: { equalTo: 'a b' } } } }, {}, true],
    ['a query parameter not sent', { match: { query: { q: { contains: '' } } } }, {}, false],
    ['a header, any case in the rule', { match: { headers: { 'X-Trace': { matches: '[a-z]+\\d+' } } } }, {}, true],
    ['a header regex over the whole value', { match: { headers: { 'x-trace': { matches: '\\d+' } } } }, {}, false],
    ['a body pointer', { match: { body: { pointer: '/name', equalTo: 'Rex' } } }, { body: { name: 'Rex', categoryId: 1 } }, true],
    ['a body pointer, another value', { match: { body: { pointer: '/name', equalTo: 'Rex' } } }, { body: { name: 'Tom' } }, false],
    ['a body pointer, no body', { match: { body: { pointer: '/name', equalTo: 'Rex' } } }, {}, false],
    [
      'the whole body, members in any order',
      { match: { body: { equalToJson: { categoryId: 1, name: 'Rex' } } } },
      { body: { name: 'Rex', categoryId: 1 } },
      true,
    ],
    ['before from', { match: {}, from: '2026-11-22T10:01:00Z' }, {}, false],
    ['at from', { match: {}, from: '2026-11-22T10:00:30Z' }, {}, true],
    ['at until (exclusive)', { match: {}, until: '2026-11-22T10:00:30Z' }, {}, false],
    ['within the window', { match: {}, from: '2026-11-22T10:00:00Z', until: '2026-11-22T10:01:00Z' }, {}, true],
  ];
  it.each(cases)('%s', (_name, input, request, expected) => {
    const rule = definition(petstore, { latency: { fixed: 1 }, ...(input as object) });
    expect(ruleTest(rule)({ ...REQUEST, ...request })).toBe(expected);
  });
});

const ALWAYS: RuleChoice = { wanted: () => true, draw: () => 0 };
const stored = (store: RuleStore, input: unknown): Rule => store.add(definition(petstore, input)).rule;

describe('RuleStore', () => {
  it('tries the newest rule first; deleting it uncovers the older one; ids count in order of creation', () => {
    const store = new RuleStore();
    const older = stored(store, { match: { operationId: 'getPet' }, respond: { status: 503 } });
    const newer = stored(store, { match: { operationId: 'getPet' }, respond: { status: 500 } });
    expect([older.id, newer.id]).toEqual(['rule_1', 'rule_2']);
    expect(store.list().map((s) => s.rule.id)).toEqual(['rule_2', 'rule_1']);
    expect(store.apply(REQUEST, ALWAYS)?.id).toBe('rule_2');
    expect(store.remove('rule_2')).toBe(true);
    expect(store.remove('rule_2')).toBe(false);
    expect(store.apply(REQUEST, ALWAYS)?.id).toBe('rule_1');
    expect(store.get('rule_1')?.applied).toBe(1);
  });

  it('passes over a rule that does not match, or that the request overrides, to an older one', () => {
    const store = new RuleStore();
    stored(store, { match: {}, latency: { fixed: 100 } });
    stored(store, { match: { operationId: 'listPets' }, respond: { status: 503 } });
    const third = stored(store, { match: { operationId: 'getPet' }, respond: { status: 500 } });
    expect(store.apply(REQUEST, ALWAYS)?.id).toBe(third.id);
    const noRespond: RuleChoice = { wanted: (rule) => rule.respond === undefined, draw: () => 0 };
    expect(store.apply(REQUEST, noRespond)?.id).toBe('rule_1');
    // Passed over: not counted.
    expect(store.get(third.id)?.applied).toBe(1);
  });

  it('times: applies that many times, then is removed; a rule not applied is not counted', () => {
    const store = new RuleStore();
    stored(store, { match: { key: 'key_pro' }, respond: { status: 503 }, times: 2 });
    expect(store.apply({ ...REQUEST, keyId: 'key_free' }, ALWAYS)).toBeUndefined();
    expect(store.get('rule_1')).toEqual({ rule: expect.objectContaining({ id: 'rule_1', times: 2 }), applied: 0 });
    expect(store.apply(REQUEST, ALWAYS)?.id).toBe('rule_1');
    expect(store.get('rule_1')?.applied).toBe(1);
    expect(store.apply(REQUEST, ALWAYS)?.id).toBe('rule_1');
    expect(store.size).toBe(0);
    expect(store.get('rule_1')).toBeUndefined();
    expect(store.apply(REQUEST, ALWAYS)).toBeUndefined();
  });

  it('probability: applies to about that share, deterministically for the same stream', () => {
    const run = (): boolean[] => {
      const store = new RuleStore();
      stored(store, { match: {}, latency: { fixed: 1 }, probability: 0.25 });
      const draws = drawStream(1, 'rule_1:key_pro');
      return Array.from({ length: 4000 }, () => store.apply(REQUEST, { wanted: () => true, draw: () => draws.next() }) !== undefined);
    };
    const first = run();
    expect(run()).toEqual(first);
    const share = first.filter(Boolean).length / first.length;
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.28);
  });

  it('probability 0 never applies, 1 applies without a draw', () => {
    const store = new RuleStore();
    stored(store, { match: {}, latency: { fixed: 1 }, probability: 0 });
    expect(store.apply(REQUEST, ALWAYS)).toBeUndefined();
    stored(store, { match: {}, latency: { fixed: 1 }, probability: 1 });
    const draw = (): number => {
      throw new Error('no draw expected');
    };
    expect(store.apply(REQUEST, { wanted: () => true, draw })?.id).toBe('rule_2');
  });

  it('a window follows the clock it is handed', () => {
    const store = new RuleStore();
    stored(store, { match: {}, respond: { status: 503 }, from: '2026-11-22T10:05:00Z', until: '2026-11-22T10:10:00Z' });
    const at = (iso: string): RuleRequest => ({ ...REQUEST, now: Date.parse(iso) });
    expect(store.apply(at('2026-11-22T10:04:59Z'), ALWAYS)).toBeUndefined();
    expect(store.apply(at('2026-11-22T10:05:00Z'), ALWAYS)?.id).toBe('rule_1');
    expect(store.apply(at('2026-11-22T10:09:59Z'), ALWAYS)?.id).toBe('rule_1');
    expect(store.apply(at('2026-11-22T10:10:00Z'), ALWAYS)).toBeUndefined();
  });

  it('clear removes every rule and ids go on; reset starts them again at rule_1', () => {
    const store = new RuleStore();
    stored(store, { match: {}, latency: { fixed: 1 } });
    stored(store, { match: {}, latency: { fixed: 1 } });
    expect(store.clear()).toBe(2);
    expect(stored(store, { match: {}, latency: { fixed: 1 } }).id).toBe('rule_3');
    store.reset();
    expect(store.size).toBe(0);
    expect(stored(store, { match: {}, latency: { fixed: 1 } }).id).toBe('rule_1');
  });

  it('a rule’s latency and faults are its source for the fault decision', () => {
    const store = new RuleStore();
    const rule = stored(store, { match: {}, latency: { fixed: 250 }, fault: 'connection_reset' });
    expect(rule.faults).toEqual({ latency: { fixed: 250 }, faults: [{ fault: 'connection_reset' }] });
    expect(stored(store, { match: {}, respond: { status: 503 } }).faults).toBeUndefined();
    expect(stored(store, { match: {}, fault: [] }).faults).toEqual({ faults: [] });
  });
});
