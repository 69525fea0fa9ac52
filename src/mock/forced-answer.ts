import { STATUS_CODES } from 'node:http';
import { escapePointerToken, follow, isObject } from '../openapi/json-pointer.js';
import { answerMedia, answerResponse, declaredResponse, sendsJson } from '../openapi/bindings.js';
import { chooseMediaType } from '../validation/accept.js';
import { errorBody, type ErrorBody, type Violation } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { MediaSpec, OperationSpec, ResponseSpec } from '../vocabulary/operation.js';
import { satisfies } from '../schemas/document-schemas.js';
import { mockAnswer, type MockOptions } from './mock-answer.js';

/** What a request forces (from `Prefer` or its aliases); every field optional. */
export interface Force {
  /** The status to answer with. */
  readonly code?: number;
  /** The name of an example (a key of the media type's `examples`, OpenAPI 3.1 §4.8.14). */
  readonly example?: string;
  /** `true`: a body generated from the schema even where the document gives an example. */
  readonly dynamic?: boolean;
  /** Seeds the generated body in place of the sandbox seed. */
  readonly seed?: number;
}

export interface ForceContext extends MockOptions {
  /** The sandbox seed: generation is deterministic under it (and the operation). */
  readonly seed: number;
  readonly referenceDate: Date;
  /** The request's `Accept`: picks the declared media type when the response declares no JSON one. */
  readonly accept: string | undefined;
}

/** A response the operation declares, with the names of its examples: what a client may force. */
export interface DeclaredResponse {
  /** As written in the document: `200`, `4XX`, `default`. */
  readonly status: string;
  readonly examples: readonly string[];
}

export type ForcedAnswer =
  | {
      readonly kind: 'answer';
      readonly response: SandboxResponse;
      /** What shaped the answer: hand it to `preferenceApplied` for `Preference-Applied`. */
      readonly applied: Force;
    }
  | {
      readonly kind: 'unsatisfiable';
      /** 422 `preference_unsatisfiable`, one detail per declared response (`responses.404`: `examples: missing`). */
      readonly error: ErrorBody;
      readonly declared: readonly DeclaredResponse[];
    };

/**
 * The answer a request forces, from the document, as the ordinary document answer is made
 * (`mockAnswer`: example or generated body valid against its schema, required headers generated,
 * no body for 204 and 304), on the response the operation declares for the forced status: exactly,
 * else its `4XX`-style range, else `default` (OpenAPI 3.1 §4.8.16.2). With only an example forced,
 * the success response the ordinary answer uses. The body is the named example, else the first
 * example, else generated from the schema; `dynamic=true` always generates (a named example still
 * wins over it), and `seed` seeds the generation. A named example that breaks its schema is not
 * served (a generated body is, and `applied` leaves the example out) unless `serveInvalidExamples`.
 * An error status answered from a range or `default` gets its own error (`forced_status`), which the
 * answer step writes into the document's error shape, unless the request names an example.
 * XML and text encoding is left to `encodeAnswer`, as for every answer.
 *
 * A status the operation does not declare, or an example its response does not name, is
 * `unsatisfiable`: the pipeline answers 422 listing what is declared. So is a 1xx status, which is
 * never a final answer (RFC 9110 §15.2).
 */
export function forcedAnswer(document: unknown, op: OperationSpec, force: Force, context: ForceContext): ForcedAnswer {
  const response = force.code === undefined ? answerResponse(op.responses) : declaredResponse(op.responses, force.code);
  const declares = `${op.id} declares ${statusList(op.responses)}`;
  if (force.code !== undefined && force.code < 200) {
    return unsatisfiable(document, op, `${force.code} is informational, never a final answer; ${declares}`);
  }
  if (response === undefined) {
    return unsatisfiable(
      document,
      op,
      force.code === undefined
        ? `No response to answer with; ${declares}`
        : `No ${force.code} response (nor ${String(force.code)[0]}XX or default) to force; ${declares}`,
    );
  }
  const media = mediaFor(response, context.accept);
  let chosen = media;
  let example: { readonly value: unknown } | undefined;
  if (force.example !== undefined) {
    const found = namedExample(document, op, response, media, force.example);
    if (found === undefined) {
      const message = `The ${shown(response.status)} response of ${op.id} has no example named ${JSON.stringify(force.example)}`;
      return unsatisfiable(document, op, `${message}; see details for the examples each response names`);
    }
    chosen = found.media;
    example = found.example;
  } else if (force.dynamic !== true && !borrowsMeaning(response, force.code)) example = chosen?.example;
  // One response, one media type, one example (or none): the ordinary answer does the rest.
  const status = force.code === undefined ? response.status : String(force.code);
  const content = chosen === undefined ? [] : [{ ...chosen, example }];
  const only: OperationSpec = { ...op, responses: [{ ...response, status, content }] };
  const answer = mockAnswer(document, only, force.seed ?? context.seed, context.referenceDate, context);
  if (example === undefined && borrowsMeaning(response, force.code) && isObject(answer.body)) {
    // The status's own error, which the answer step writes into the document's error shape.
    const own: SandboxResponse = { ...answer, body: { code: 'forced_status', message: reasonPhrase(force.code), status: force.code } };
    return { kind: 'answer', response: own, applied: appliedBy({ code: force.code, dynamic: force.dynamic }, own, undefined, false) };
  }
  const answered = force.code === undefined || response.status === status ? answer : withOwnStatus(document, chosen, answer, force.code);
  // What was served is judged on the body as made: naming the status answered keeps the example served.
  return { kind: 'answer', response: answered, applied: appliedBy(force, answer, example) };
}

/**
 * An error status answered from a range (`5XX`) or `default`: an example there was written for some
 * other status (the Pet Store's `default` shows a 405), so the body is the status's own error,
 * `forced_status` with its reason phrase (RFC 9110 §15), unless the request names an example.
 */
const borrowsMeaning = (response: ResponseSpec, code: number | undefined): code is number =>
  code !== undefined && code >= 400 && response.status !== String(code);

/** What a status means, as RFC 9110 §15 names it (`Internal Server Error`). */
const reasonPhrase = (code: number): string => STATUS_CODES[code] ?? `Status ${code}`;

/**
 * A status answered from a `4XX` range or `default` whose body names a status of its own (an Error
 * shape's `status`, written for another status in the example): the body names the status answered,
 * when its schema allows that; otherwise it is sent as the document gives it.
 */
function withOwnStatus(document: unknown, media: MediaSpec | undefined, answer: SandboxResponse, code: number): SandboxResponse {
  const body = answer.body;
  if (!isObject(body) || !Object.hasOwn(body, 'status') || body.status === code || body.status === String(code)) return answer;
  const own = { ...body, status: typeof body.status === 'string' ? String(code) : code };
  return satisfies(document, media?.schemaPointer, own) ? { ...answer, body: own } : answer;
}

/**
 * The media type the body is made for: the one the ordinary answer uses (the first JSON-like one,
 * which `encodeAnswer` turns into XML or text when `Accept` asks for that), or, when the response
 * declares no JSON, the declared type `Accept` prefers.
 */
function mediaFor(response: ResponseSpec, accept: string | undefined): MediaSpec | undefined {
  const usual = answerMedia(response);
  if (accept === undefined || sendsJson(usual)) return usual;
  const preferred = chooseMediaType(
    response.content.map((m) => m.mediaType),
    accept,
  );
  return response.content.find((m) => m.mediaType === preferred) ?? usual;
}

/** The example `name` of the response, looked up in `first` and then in its other media types. */
function namedExample(
  document: unknown,
  op: OperationSpec,
  response: ResponseSpec,
  first: MediaSpec | undefined,
  name: string,
): { readonly media: MediaSpec; readonly example: { readonly value: unknown } } | undefined {
  const order = first === undefined ? response.content : [first, ...response.content.filter((m) => m !== first)];
  for (const media of order) {
    const object = mediaObject(document, op, response, media);
    const examples = isObject(object?.value) ? object.value.examples : undefined;
    if (!isObject(examples) || !Object.hasOwn(examples, name)) continue;
    const { value } = follow(document, `${object?.pointer ?? ''}/examples/${escapePointerToken(name)}`);
    // An example object with `externalValue` only has no value the sandbox can serve.
    if (isObject(value) && value.value !== undefined) return { media, example: { value: value.value } };
  }
  return undefined;
}

/**
 * The media type object in the document. The model keeps its schema's pointer; one without a
 * schema is found from the operation (statuses and media types are kept in their model spelling:
 * `DEFAULT`, lower-case types).
 */
function mediaObject(
  document: unknown,
  op: OperationSpec,
  response: ResponseSpec,
  media: MediaSpec,
): { readonly value: unknown; readonly pointer: string } | undefined {
  if (media.schemaPointer !== undefined) return follow(document, media.schemaPointer.replace(/\/schema$/, ''));
  const responses = follow(document, `#/paths/${escapePointerToken(op.pathTemplate)}/${op.method.toLowerCase()}/responses`);
  const status = isObject(responses.value) ? Object.keys(responses.value).find((key) => key.toUpperCase() === response.status) : undefined;
  if (status === undefined) return undefined;
  const declared = follow(document, `${responses.pointer}/${escapePointerToken(status)}`);
  const content = isObject(declared.value) ? declared.value.content : undefined;
  const type = isObject(content) ? Object.keys(content).find((key) => key.toLowerCase() === media.mediaType) : undefined;
  return type === undefined ? undefined : follow(document, `${declared.pointer}/content/${escapePointerToken(type)}`);
}

/**
 * What shaped the answer: the code always; the example only when it was served (the ordinary
 * answer serves the very value, or generates one in its place); `dynamic=true` and the seed only
 * when the body was generated; `dynamic=false` whenever there is a body (an example, or a value
 * generated the same for every request: static either way).
 */
function appliedBy(force: Force, answer: SandboxResponse, example: { readonly value: unknown } | undefined, fromSchema = true): Force {
  const served = example !== undefined && answer.body !== undefined && answer.body === example.value;
  const generated = fromSchema && answer.body !== undefined && !served;
  return {
    ...(force.code === undefined ? {} : { code: force.code }),
    ...(force.example !== undefined && served ? { example: force.example } : {}),
    ...((force.dynamic === true && generated) || (force.dynamic === false && answer.body !== undefined) ? { dynamic: force.dynamic } : {}),
    ...(force.seed !== undefined && generated ? { seed: force.seed } : {}),
  };
}

function unsatisfiable(document: unknown, op: OperationSpec, message: string): ForcedAnswer {
  const declared = op.responses.map((response): DeclaredResponse => {
    const names = response.content.flatMap((media) => {
      const object = mediaObject(document, op, response, media);
      return isObject(object?.value) && isObject(object.value.examples) ? Object.keys(object.value.examples) : [];
    });
    return { status: shown(response.status), examples: [...new Set(names)] };
  });
  const details = declared.map(({ status, examples }): Violation => ({
    location: `responses.${status}`,
    message: examples.length === 0 ? 'declared, with no named examples' : `declared, examples: ${examples.join(', ')}`,
  }));
  return { kind: 'unsatisfiable', error: errorBody('preference_unsatisfiable', message, details), declared };
}

/** `DEFAULT` as the document writes it. */
const shown = (status: string): string => (status === 'DEFAULT' ? 'default' : status);
const statusList = (responses: readonly ResponseSpec[]): string => responses.map((r) => shown(r.status)).join(', ');
