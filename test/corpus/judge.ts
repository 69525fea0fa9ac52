import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isObject, pointer, prepare, type Direction, type HarnessDocument, type Json, type JsonObject } from './document.js';
import type { Media, Operation } from './operations.js';

/**
 * The harness's own validator: two Ajv instances (requests, answers) compiled from the document,
 * separate from the sandbox's src/validation. Schemas compile lazily, once each.
 */
export class SchemaJudge {
  private readonly validators = new Map<string, ValidateFunction | null>();
  private readonly ajv: Record<Direction, Ajv>;
  /** The document as requests read it (readOnly not required, 3.0 keywords normalised): what values are generated from. */
  readonly requestDoc: JsonObject;

  constructor(readonly source: HarnessDocument) {
    this.requestDoc = prepare(source.doc, source.dialect, 'request');
    const make = (doc: JsonObject): Ajv => {
      const options = { strict: false, validateSchema: false, logger: false, unicodeRegExp: false, allowUnionTypes: true } as const;
      const ajv = source.dialect === '3.1' ? new Ajv2020(options) : new Ajv(options);
      addFormats.default(ajv);
      ajv.addSchema(doc, 'doc');
      return ajv;
    };
    this.ajv = { request: make(this.requestDoc), response: make(prepare(source.doc, source.dialect, 'response')) };
  }

  /** Errors of `value` against the schema at `at` (undefined: valid, or a schema Ajv cannot compile). */
  errors(direction: Direction, at: readonly string[], value: Json): string | undefined {
    const key = `${direction}${pointer(at)}`;
    let validate = this.validators.get(key);
    if (validate === undefined) {
      try {
        validate = this.ajv[direction].compile({ $ref: `doc${pointer(at)}` });
      } catch {
        validate = null;
      }
      this.validators.set(key, validate);
    }
    if (validate === null || validate(value)) return undefined;
    return (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
      .join('; ');
  }

  valid(direction: Direction, at: readonly string[] | undefined, value: Json): boolean {
    return at === undefined || this.errors(direction, at, value) === undefined;
  }
}

export interface Answer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

const isJsonType = (type: string): boolean => /^application\/([\w.-]+\+)?json$/.test(type) || type.endsWith('+json');
const bare = (type: string): string => type.split(';')[0]?.trim().toLowerCase() ?? '';

/** The declared response for a status: exact, then `2XX`-style range, then `default`. */
export function declaredFor(op: Operation, status: number): readonly Media[] | undefined {
  return op.responses.get(String(status)) ?? op.responses.get(`${Math.floor(status / 100)}XX`) ?? op.responses.get('default');
}

function typeMatches(declared: string, actual: string): boolean {
  const [dType, dSub] = bare(declared).split('/');
  const [aType, aSub] = actual.split('/');
  return (dType === '*' || dType === aType) && (dSub === '*' || dSub === aSub);
}

/**
 * Whether an answer keeps the operation's contract; undefined when it does, else why not. The
 * status must be declared, the Content-Type one of the status's media types, and a JSON (or text)
 * body must validate against that media type's schema.
 */
export function contractBreach(judge: SchemaJudge, op: Operation, answer: Answer): string | undefined {
  const declared = declaredFor(op, answer.status);
  if (declared === undefined) return `status ${answer.status} not declared (declared: ${[...op.responses.keys()].join(', ')})`;
  if (declared.length === 0) return answer.body.length === 0 ? undefined : `a body on ${answer.status}, which declares none`;
  // A 204 or 304 cannot carry content (RFC 9110 §15.3.5, §15.4.5): a document that declares some
  // for one is answered as HTTP requires, with none.
  if ((answer.status === 204 || answer.status === 304) && answer.body.length === 0) return undefined;
  if (answer.contentType === undefined)
    return answer.body.length === 0 ? `no body on ${answer.status}, which declares content` : 'no Content-Type';
  const actual = bare(answer.contentType);
  const media = declared.find((m) => bare(m.type) === actual) ?? declared.find((m) => typeMatches(m.type, actual));
  if (!media) return `Content-Type ${actual} not declared for ${answer.status} (declared: ${declared.map((m) => m.type).join(', ')})`;
  // A HEAD answer has the GET answer's headers and no body (RFC 9110 §9.3.2): nothing to validate.
  if (media.schemaAt === undefined || op.method === 'HEAD') return undefined;
  let value: Json;
  if (isJsonType(actual)) {
    try {
      value = JSON.parse(answer.body.toString('utf8')) as Json;
    } catch {
      return `the ${actual} body is not JSON`;
    }
  } else if (actual.startsWith('text/')) value = answer.body.toString('utf8');
  else return undefined;
  const errors = judge.errors('response', media.schemaAt, value);
  if (errors === undefined) return undefined;
  const origin = documentExamples(judge, media.schemaAt).includes(JSON.stringify(value))
    ? " (the answer is the document's own example)"
    : '';
  return `body breaks the ${answer.status} ${actual} schema${origin}: ${errors}`;
}

/** The media type's `example` and `examples` (3.0 §4.7.11), serialised, to tell a served example from generated data. */
function documentExamples(judge: SchemaJudge, schemaAt: readonly string[]): string[] {
  let node: unknown = judge.source.doc;
  for (const s of schemaAt.slice(0, -1)) node = isObject(node) ? node[s] : undefined;
  if (!isObject(node)) return [];
  const out: unknown[] = node.example === undefined ? [] : [node.example];
  if (isObject(node.examples)) for (const e of Object.values(node.examples)) if (isObject(e) && e.value !== undefined) out.push(e.value);
  return out.map((e) => JSON.stringify(e));
}
